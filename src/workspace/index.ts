/**
 * @module ctxloom/workspace
 * Workspace layout, bootstrap files, safe paths and the file cache.
 */

export { type AgentWorkspace, type AgentWorkspaceOptions, resolveAgentWorkspace } from './agent-workspace.js';
export {
  type CachedTextFile,
  DEFAULT_WORKSPACE_FILE_CACHE,
  WorkspaceFileCache,
  type WorkspaceFileCacheOptions,
} from './file-cache.js';
export { NANOBOT_TEMPLATE_DIGESTS, type TemplateDigest } from './nanobot-template-digests.js';
export {
  DRY_RUN_REFERENCE_HEADER,
  dryRunOffloadReference,
  OFFLOAD_REFERENCE_HEADER,
  offloadReference,
} from './offload-reference.js';
export {
  type PersistToolResultOptions,
  type PersistToolResultOutcome,
  persistToolResult,
} from './persist-tool-result.js';
export {
  type OffloadTarget,
  type PlannedToolResultOffload,
  planToolResultOffload,
  TOOL_RESULTS_DIR,
} from './plan-tool-result-offload.js';
export { resolveRealInside } from './resolve-real-inside.js';
export {
  injectiveFileName,
  leavesFolder,
  nanobotFileName,
  resolveInside,
  safeFileName,
} from './safe-path.js';
export {
  type ScaffoldResult,
  type ScaffoldWorkspaceOptions,
  scaffoldWorkspace,
} from './scaffold-workspace.js';
export { type OffloadWriteOutcome, ToolResultOffloadWriter } from './tool-result-offload-writer.js';
export {
  matchesWorkspaceTemplate,
  type TemplateCheck,
  WORKSPACE_TEMPLATES,
  type WorkspaceTemplateFile,
} from './workspace-templates.js';
