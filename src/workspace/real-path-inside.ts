import { lstatSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { leavesFolder, resolveInside } from './safe-path.js';

/**
 * The synchronous core of `resolveRealInside`, for callers that look a file up on every build: the
 * real path of `relativePath` inside `root` (links followed), or `undefined` when nothing is there
 * (checked with one `lstat` that makes no error object), so a missing bootstrap file costs one system
 * call. A file that exists costs the `lstat` and the real path of the root (`realRootOf`, which a
 * caller looking up several files in one build may memoise), plus the real path of the file unless
 * it sits right in the root and is not a link (then it is the real root joined with its name).
 * Nothing is cached across calls, so a link changed between two builds is seen by the next one.
 * Throws the file system's error for anything else (a dangling link: `ENOENT`; a file on the path:
 * `ENOTDIR`). @internal
 * @throws ContextError `UNSAFE_PATH` when the path or a link target leaves the root.
 */
export function realPathInside(
  root: string,
  file: {
    readonly path: string;
    readonly realRootOf?: (root: string) => string;
    /** The `lstat` of the path the caller already took (then not taken again). */
    readonly lstat?: Stats;
  },
): string | undefined {
  const relativePath = file.path;
  const resolved = resolveInside(root, relativePath);
  const stats = file.lstat ?? lstatSync(resolved, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  const realRoot = (file.realRootOf ?? realpathSync.native)(root);
  const realFile =
    !stats.isSymbolicLink() && path.dirname(resolved) === path.resolve(root)
      ? path.join(realRoot, path.basename(resolved))
      : realpathSync.native(resolved);
  const relative = path.relative(realRoot, realFile);
  if (!leavesFolder(relative)) return realFile;
  throw new ContextError({
    code: 'UNSAFE_PATH',
    message: `${JSON.stringify(relativePath)} is a link to ${realFile}, outside the workspace ${realRoot}; replace the link with a real file inside the workspace.`,
    details: { root: realRoot, path: relativePath, target: realFile },
  });
}
