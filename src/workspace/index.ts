/**
 * @module ctxloom/workspace
 * Workspace layout, bootstrap files, safe paths and the file cache.
 */
export {
  type CachedTextFile,
  DEFAULT_WORKSPACE_FILE_CACHE,
  readTextFileCached,
  WorkspaceFileCache,
  type WorkspaceFileCacheOptions,
} from './file-cache.js';
export { resolveRealInside } from './resolve-real-inside.js';
export { resolveInside, safeFileName } from './safe-path.js';
export {
  OFFLOAD_REFERENCE_HEADER,
  offloadReference,
  type PersistToolResultOptions,
  type PersistToolResultOutcome,
  persistToolResult,
  TOOL_RESULTS_DIR,
} from './tool-result-offload.js';
