import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { checkSessionKey } from './check-session-key.js';
import { latestTime } from './latest-time.js';
import type { SessionFolders } from './locate-session-file.js';
import { readSessionEnds } from './read-session-ends.js';
import { legacySessionFileName, sessionFileName, sessionKeyOfFile } from './session-file-name.js';
import type { SessionSummary } from './session-store.js';

/** A line of `JsonlSessionStore.list()`: the summary plus the file it was read from. */
export type JsonlSessionSummary = SessionSummary & {
  /** The session file (in the store's folder or a legacy one). */
  readonly file: string;
  readonly sizeBytes: number;
  readonly warnings: readonly string[];
};

type Found = JsonlSessionSummary & { readonly rank: number };

/**
 * Lists the sessions in the store's folder and the legacy folders from each file's first and last
 * lines only (never the messages). A key found in several files is listed once, from the file
 * `locateSessionFile` would load. A file that cannot be read is listed with a warning, never dropped
 * and never failing the list.
 */
export async function listSessionFiles(folders: SessionFolders): Promise<readonly JsonlSessionSummary[]> {
  const found: Found[] = [];
  for (const [index, dir] of [folders.dir, ...folders.legacyDirs].entries()) {
    for (const name of await jsonlNames(dir)) {
      const entry = await summarise(path.join(dir, name), folders);
      const canonical = name === sessionFileName(entry.key);
      found.push({ ...entry, rank: index * 2 + (canonical ? 0 : 1) });
    }
  }
  found.sort((left, right) => left.rank - right.rank);
  const byKey = new Map<string, JsonlSessionSummary>();
  for (const { rank: _rank, ...entry } of found) {
    const first = byKey.get(entry.key);
    if (first === undefined) byKey.set(entry.key, entry);
    else {
      const warning = `Another copy of this session, ${entry.file}, is not used.`;
      byKey.set(entry.key, { ...first, warnings: [...first.warnings, warning] });
    }
  }
  return [...byKey.values()].sort((left, right) =>
    left.key < right.key ? -1 : left.key > right.key ? 1 : 0,
  );
}

async function jsonlNames(dir: string): Promise<readonly string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).sort();
  } catch (error) {
    if (isMissingFileError(error)) return [];
    throw error;
  }
}

async function summarise(file: string, folders: SessionFolders): Promise<JsonlSessionSummary> {
  const name = path.basename(file);
  try {
    const ends = await readSessionEnds(file, folders);
    const key = sessionKeyOfFile(name, ends.header?.key);
    const warnings = [
      ...(ends.headerProblem === undefined ? [] : [`${file}: ${ends.headerProblem}.`]),
      ...keyWarnings(file, key),
    ];
    const updatedAt = latestTime(ends.header?.updatedAt, ends.lastTimestamp);
    return {
      key: key ?? name,
      ...(ends.header?.createdAt === undefined ? {} : { createdAt: ends.header.createdAt }),
      ...(updatedAt === undefined ? {} : { updatedAt }),
      file,
      sizeBytes: ends.sizeBytes,
      warnings,
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      key: sessionKeyOfFile(name, undefined) ?? name,
      file,
      sizeBytes: 0,
      warnings: [`Cannot read ${file}: ${reason}`],
    };
  }
}

function keyWarnings(file: string, key: string | undefined): readonly string[] {
  const name = path.basename(file);
  if (key === undefined)
    return [`${file}: the session key is unknown (a hashed file name without a readable metadata record).`];
  try {
    checkSessionKey(key, { backend: 'jsonl', operation: 'list' });
  } catch (error) {
    return [ContextError.isInstance(error) ? error.message : String(error)];
  }
  if (name === sessionFileName(key) || name === legacySessionFileName(key)) return [];
  return [
    `${file} holds ${JSON.stringify(key)} under a name nanobot does not use for it; rename it to ${sessionFileName(key)} to load it.`,
  ];
}
