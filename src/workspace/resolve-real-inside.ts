import { realpath } from 'node:fs/promises';
import { realPathInside } from './real-path-inside.js';
import { resolveInside } from './safe-path.js';

/**
 * Like `resolveInside`, and also follows symbolic links: resolves `relativePath` inside `root`, then
 * checks that the real path of the file (links followed) is still inside the real path of the root.
 * Rejects with the file system's error when the file does not exist.
 * @throws ContextError `UNSAFE_PATH` when the path or a link target leaves the root.
 */
export async function resolveRealInside(root: string, relativePath: string): Promise<string> {
  const real = realPathInside(root, { path: relativePath });
  // Nothing there: let the file system say so in its own words (ENOENT with the path).
  return real ?? (await realpath(resolveInside(root, relativePath)));
}
