/**
 * @module ctxloom/workspace
 * Workspace layout, bootstrap files, safe paths and the file cache.
 */
export { resolveInside, safeFileName } from './safe-path.js';
