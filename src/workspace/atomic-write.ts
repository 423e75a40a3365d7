import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { hasErrorCode } from './fs-helpers.js';

/** Options for {@link atomicWriteFile}. */
export type AtomicWriteOptions = {
  /** The new file's permission bits. @default 0o600 */
  readonly mode?: number;
};

/**
 * Replaces `filePath` with `content` atomically: writes a temp file `.{name}.{16 hex}.tmp` in the same
 * folder (created exclusively), fsyncs it, renames it over the target and fsyncs the folder. A reader
 * sees the old file or the new one, never a mix; a crash leaves the old file.
 */
export async function atomicWriteFile(
  filePath: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(filePath);
  const temp = await writeSyncedTemp(filePath, { content, mode: options.mode ?? 0o600 });
  try {
    await rename(temp, filePath);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

/**
 * Writes `content` to a new temp file `.{name}.{16 hex}.tmp` beside `filePath` (created exclusively)
 * and fsyncs it; returns its path. On failure the temp file is removed and the error thrown. The
 * caller moves it into place (rename or link) and syncs the folder.
 */
export async function writeSyncedTemp(
  filePath: string,
  { content, mode }: { readonly content: string | Uint8Array; readonly mode: number },
): Promise<string> {
  const temp = path.join(
    path.dirname(filePath),
    `.${path.basename(filePath)}.${randomBytes(8).toString('hex')}.tmp`,
  );
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
}

/** Fsyncs a folder so a rename in it is durable; platforms that refuse (EINVAL, EPERM, …) are ignored. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Some platforms and file systems cannot fsync a folder; any other failure is real.
    if (!['EINVAL', 'EPERM', 'EISDIR', 'ENOTSUP', 'EACCES'].some((code) => hasErrorCode(error, code)))
      throw error;
  }
}

/** Error codes of file systems without hard links. */
const NO_HARD_LINKS = ['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP'];

/**
 * Gives `temp` the name `file` with a hard link, which fails instead of replacing a file that
 * appeared since it was checked: false when `file` exists. File systems without hard links fall back
 * to a rename.
 */
export async function linkNew(temp: string, file: string): Promise<boolean> {
  try {
    await link(temp, file);
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    if (!NO_HARD_LINKS.some((code) => hasErrorCode(error, code))) throw error;
    await rename(temp, file);
    return true;
  }
  await unlink(temp);
  return true;
}
