import { stat } from 'node:fs/promises';
import path from 'node:path';
import { hasErrorCode, isMissingFileError } from '../workspace/fs-helpers.js';
import { readSessionEnds } from './read-session-ends.js';
import { legacySessionFileName, sessionFileName, sessionKeyOfFile } from './session-file-name.js';

/** The folders a JSONL store reads: its own, then those older nanobot versions used. */
export type SessionFolders = {
  readonly dir: string;
  readonly legacyDirs: readonly string[];
  readonly maxLineBytes: number;
};

/**
 * The file that holds a session, in nanobot's order: the current name (`{base64url(key)}.jsonl`) in
 * the store's folder, then nanobot's legacy name (`cli_direct.jsonl`), then both names in each legacy
 * folder. A file under a legacy name counts only if it holds this key (its metadata record's `key`,
 * or nanobot's guess from the name when it has none), since legacy names are shared by several keys.
 * Resolves to `undefined` when no file holds the session. Reads only.
 */
export async function locateSessionFile(
  sessionKey: string,
  folders: SessionFolders,
): Promise<string | undefined> {
  const current = sessionFileName(sessionKey);
  const legacy = legacySessionFileName(sessionKey);
  for (const dir of [folders.dir, ...folders.legacyDirs]) {
    const file = path.join(dir, current);
    if (await isFile(file)) return file;
    if (legacy === current) continue;
    const old = path.join(dir, legacy);
    if ((await isFile(old)) && (await holdsKey(old, { sessionKey, maxLineBytes: folders.maxLineBytes })))
      return old;
  }
  return undefined;
}

async function holdsKey(
  file: string,
  options: { readonly sessionKey: string; readonly maxLineBytes: number },
): Promise<boolean> {
  const { header } = await readSessionEnds(file, options);
  return sessionKeyOfFile(path.basename(file), header?.key) === options.sessionKey;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch (error) {
    if (isMissingFileError(error) || hasErrorCode(error, 'ENAMETOOLONG')) return false;
    throw error;
  }
}
