import { statSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';

/** True when `error` is a Node file-system error with this `code` (e.g. `ENOENT`). */
export function hasErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

/** True when `error` says a path (or a folder on it) does not exist: `ENOENT` or `ENOTDIR`. */
export function isMissingFileError(error: unknown): boolean {
  return hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR');
}

/** True when `file` exists; false when it is missing; any other error (e.g. permissions) is thrown. */
export async function fileExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if (isMissingFileError(error)) return false;
    throw error;
  }
}

/** Reads a UTF-8 file, or `''` when it does not exist. */
export async function readTextOrEmpty(file: string): Promise<string> {
  // A missing file (the common case for memory) is told by one stat that makes no error object.
  if (statSync(file, { throwIfNoEntry: false }) === undefined) return '';
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return '';
    throw error;
  }
}

/**
 * True when the file is missing, empty, or its last byte is a newline. Appenders call this under
 * their lock: a torn last line (a crash mid-write) gets a newline first, so the next record starts
 * on its own line and only the torn fragment is lost to the reader (which skips and reports it).
 */
export async function endsWithNewline(file: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return true;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return true;
    const buffer = Buffer.alloc(1);
    await handle.read(buffer, 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

/** Whether `file` holds exactly `stored`, other bytes, or is missing (compared byte for byte). */
export async function holdsBytes(file: string, stored: string): Promise<'same' | 'other' | 'missing'> {
  try {
    if ((await stat(file)).size !== Buffer.byteLength(stored, 'utf8')) return 'other';
    return (await readFile(file, 'utf8')) === stored ? 'same' : 'other';
  } catch (error) {
    if (isMissingFileError(error)) return 'missing';
    throw error;
  }
}

/** The message of a thrown value: an `Error`'s message, anything else as a string. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
