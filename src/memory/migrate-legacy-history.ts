import { rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileExists, hasErrorCode, readTextOrEmpty } from '../workspace/fs-helpers.js';
import { formatHistoryTimestamp } from './format-timestamp.js';
import { HistoryLog } from './history-log.js';

/** Options for {@link migrateLegacyHistory}. */
export type MigrateLegacyHistoryOptions = {
  /** The agent workspace. */
  readonly workspace: string;
};

/** What {@link migrateLegacyHistory} did. */
export type LegacyHistoryMigration =
  | { readonly status: 'absent' }
  /** history.jsonl already has content, so HISTORY.md was left as it is (nanobot refuses too). */
  | { readonly status: 'skipped'; readonly path: string }
  | {
      readonly status: 'migrated';
      /** Entries written (cursors 1…entries; the Dream cursor is set to the last one). */
      readonly entries: number;
      /** Where HISTORY.md went: `HISTORY.md.bak`, or `.bak.2`, `.bak.3`, … when taken. */
      readonly backupPath: string;
    };

const ENTRY_START = /^\[(\d{4}-\d{2}-\d{2}[^\]]*)\]\s*/;
const TIMESTAMP = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\]\s*/;
const RAW_MESSAGE_LINE = /^\[\d{4}-\d{2}-\d{2}[^\]]*\]\s+[A-Z][A-Z0-9_]*(?:\s+\[tools:\s*[^\]]+\])?:/;

/**
 * Moves a legacy `memory/HISTORY.md` into `memory/history.jsonl` once, as nanobot does: only when
 * history.jsonl is missing or empty (else nothing happens, so entries are never duplicated); each
 * entry (a paragraph, or a line starting with `[YYYY-MM-DD…]`, keeping a `[RAW]` block's message lines
 * together) keeps its `[YYYY-MM-DD HH:MM]` timestamp, or gets the file's modification time; both
 * `.cursor` and the Dream cursor are set to the last entry's cursor, so the migrated history is
 * treated as already processed (not replayed into Recent History or the memory writer). Then
 * HISTORY.md is renamed to `HISTORY.md.bak` (`.bak.2`, … when taken), never deleted.
 */
export async function migrateLegacyHistory(
  options: MigrateLegacyHistoryOptions,
): Promise<LegacyHistoryMigration> {
  const file = path.join(options.workspace, 'memory', 'HISTORY.md');
  let modified: Date;
  try {
    modified = (await stat(file)).mtime;
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return { status: 'absent' };
    throw error;
  }
  const log = new HistoryLog({ workspace: options.workspace });
  const entries = parseLegacyHistory(await readTextOrEmpty(file), formatHistoryTimestamp(modified));
  const written = await log.writeInitialEntries(entries);
  if (written === undefined) return { status: 'skipped', path: log.path };
  const backupPath = await backupName(file);
  await rename(file, backupPath);
  return { status: 'migrated', entries: entries.length, backupPath };
}

/** nanobot's reading of HISTORY.md into `{ timestamp, content }` entries, oldest first. */
function parseLegacyHistory(
  text: string,
  fallbackTimestamp: string,
): readonly { readonly timestamp: string; readonly content: string }[] {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (normalized === '') return [];
  return splitChunks(normalized).map((chunk) => {
    const match = TIMESTAMP.exec(chunk);
    const remainder = match === null ? '' : chunk.slice(match[0].length).trimStart();
    return {
      timestamp: match?.[1] ?? fallbackTimestamp,
      content: remainder === '' ? chunk : remainder,
    };
  });
}

function splitChunks(text: string): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let afterBlank = false;
  const flush = (line: string): void => {
    chunks.push(current.join('\n').trim());
    current = [line];
    afterBlank = false;
  };
  for (const line of text.split('\n')) {
    if (afterBlank && line.trim() !== '' && current.length > 0) flush(line);
    else if (startsEntry(line, current)) flush(line);
    else {
      current.push(line);
      afterBlank = line.trim() === '';
    }
  }
  if (current.length > 0) chunks.push(current.join('\n').trim());
  return chunks.filter((chunk) => chunk !== '');
}

function startsEntry(line: string, current: readonly string[]): boolean {
  if (current.length === 0 || !ENTRY_START.test(line)) return false;
  return !(isRawChunk(current) && RAW_MESSAGE_LINE.test(line));
}

function isRawChunk(lines: readonly string[]): boolean {
  const first = lines.find((line) => line.trim() !== '') ?? '';
  const match = TIMESTAMP.exec(first);
  return match !== null && first.slice(match[0].length).trimStart().startsWith('[RAW]');
}

async function backupName(file: string): Promise<string> {
  if (!(await fileExists(`${file}.bak`))) return `${file}.bak`;
  for (let index = 2; ; index += 1)
    if (!(await fileExists(`${file}.bak.${index}`))) return `${file}.bak.${index}`;
}
