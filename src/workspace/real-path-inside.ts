import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { leavesFolder, resolveInside } from './safe-path.js';

/**
 * The synchronous core of `resolveRealInside`, for callers that look a file up on every build: the
 * real path of `relativePath` inside `root` (links followed), or `undefined` when nothing is there
 * (checked with one `lstat` that makes no error object), so a missing bootstrap file costs one system
 * call. Three cheap system calls for a file that exists (lstat, and the real paths of the file and
 * the root); nothing is cached, so a link changed between two builds is seen by the next one.
 * Throws the file system's error for anything else (a dangling link: `ENOENT`; a file on the path:
 * `ENOTDIR`). @internal
 * @throws ContextError `UNSAFE_PATH` when the path or a link target leaves the root.
 */
export function realPathInside(root: string, relativePath: string): string | undefined {
  const resolved = resolveInside(root, relativePath);
  if (lstatSync(resolved, { throwIfNoEntry: false }) === undefined) return undefined;
  const realFile = realpathSync.native(resolved);
  const realRoot = realpathSync.native(root);
  const relative = path.relative(realRoot, realFile);
  if (!leavesFolder(relative)) return realFile;
  throw new ContextError({
    code: 'UNSAFE_PATH',
    message: `${JSON.stringify(relativePath)} is a link to ${realFile}, outside the workspace ${realRoot}; replace the link with a real file inside the workspace.`,
    details: { root: realRoot, path: relativePath, target: realFile },
  });
}
