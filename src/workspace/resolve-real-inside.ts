import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { leavesFolder, resolveInside } from './safe-path.js';

/**
 * Like `resolveInside`, and also follows symbolic links: resolves `relativePath` inside `root`, then
 * checks that the real path of the file (links followed) is still inside the real path of the root.
 * Rejects with the file system's error when the file does not exist.
 * @throws ContextError `UNSAFE_PATH` when the path or a link target leaves the root.
 */
export async function resolveRealInside(root: string, relativePath: string): Promise<string> {
  const resolved = resolveInside(root, relativePath);
  const [realRoot, realFile] = await Promise.all([realpath(root), realpath(resolved)]);
  const relative = path.relative(realRoot, realFile);
  if (!leavesFolder(relative)) return realFile;
  throw new ContextError({
    code: 'UNSAFE_PATH',
    message: `${JSON.stringify(relativePath)} is a link to ${realFile}, outside the workspace ${realRoot}; replace the link with a real file inside the workspace.`,
    details: { root: realRoot, path: relativePath, target: realFile },
  });
}
