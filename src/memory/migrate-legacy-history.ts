import { rename } from 'node:fs/promises';
import path from 'node:path';
import { fileExists, readTextOrEmpty } from '../workspace/fs-helpers.js';
import { HistoryLog } from './history-log.js';

/** Options for {@link migrateLegacyHistory}. */
export type MigrateLegacyHistoryOptions = {
  /** The agent workspace. */
  readonly workspace: string;
  /** The clock for paragraphs without a timestamp. @default the system clock */
  readonly now?: () => Date;
};

const STAMPED = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\]\s*([\s\S]*)$/;

/**
 * Moves a legacy `memory/HISTORY.md` (seed 003: paragraphs `[YYYY-MM-DD HH:MM] text` separated by
 * blank lines) into `memory/history.jsonl`, once: every non-blank paragraph becomes an entry (keeping
 * its timestamp), then the file is renamed to `HISTORY.md.bak` (or `.bak.1`, `.bak.2`, … when taken),
 * never deleted. Resolves to the number of entries written (0 when there is no HISTORY.md).
 */
export async function migrateLegacyHistory(options: MigrateLegacyHistoryOptions): Promise<number> {
  const file = path.join(options.workspace, 'memory', 'HISTORY.md');
  const text = await readTextOrEmpty(file);
  if (!(await fileExists(file))) return 0;
  const log = new HistoryLog({
    workspace: options.workspace,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  let written = 0;
  let lastStamp: string | undefined;
  for (const paragraph of text.split(/\n\s*\n/)) {
    const trimmed = paragraph.trim();
    if (trimmed === '') continue;
    const match = STAMPED.exec(trimmed);
    lastStamp = match?.[1] ?? lastStamp;
    const content = match?.[2] ?? trimmed;
    await log.append(content, lastStamp === undefined ? {} : { timestamp: lastStamp });
    written += 1;
  }
  await rename(file, await backupName(file));
  return written;
}

async function backupName(file: string): Promise<string> {
  if (!(await fileExists(`${file}.bak`))) return `${file}.bak`;
  for (let index = 1; ; index += 1)
    if (!(await fileExists(`${file}.bak.${index}`))) return `${file}.bak.${index}`;
}
