import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { hasErrorCode, isMissingFileError } from './fs-helpers.js';

/**
 * Creates `dir` and its missing parents one level at a time, and says whether it created any. Unlike
 * `mkdir(dir, { recursive: true })`, which on Node retries for minutes under a parent that exists but
 * refuses new folders (`/proc`), every level is one `mkdir` that either succeeds or fails at once.
 * @throws ContextError `INVALID_INPUT` naming the folder that could not be made (a file in the way, a
 *   parent that takes no new folders, no permission, a read-only file system) and why.
 */
export async function makeFolders(dir: string): Promise<boolean> {
  const target = path.resolve(dir);
  const missing: string[] = [];
  for (let folder = target; ; folder = path.dirname(folder)) {
    const info = await stat(folder).catch((error: unknown) => {
      if (isMissingFileError(error)) return undefined;
      throw cannotCreate(target, { folder, error });
    });
    if (info?.isDirectory() === true) break;
    if (info !== undefined)
      throw new ContextError({
        code: 'INVALID_INPUT',
        message: `Cannot create the folder ${target}: ${folder} is a file, not a folder; pick another place.`,
      });
    missing.unshift(folder);
    if (path.dirname(folder) === folder) break;
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (error) {
      if (hasErrorCode(error, 'EEXIST') && (await stat(folder)).isDirectory()) continue;
      throw cannotCreate(target, { folder, error });
    }
  }
  return missing.length > 0;
}

function cannotCreate(
  target: string,
  failure: { readonly folder: string; readonly error: unknown },
): ContextError {
  const { folder, error } = failure;
  const parent = path.dirname(folder);
  const reason = error instanceof Error ? error.message : String(error);
  const why = hasErrorCode(error, 'ENOENT')
    ? `${parent} exists but takes no new folders (a virtual file system such as /proc)`
    : hasErrorCode(error, 'EACCES') || hasErrorCode(error, 'EPERM')
      ? `no permission to write in ${parent}`
      : hasErrorCode(error, 'EROFS')
        ? `${parent} is on a read-only file system`
        : reason;
  return new ContextError({
    code: 'INVALID_INPUT',
    message: `Cannot create the folder ${target}: making ${folder} failed (${why}); pick a folder you can write to.`,
    cause: error,
  });
}
