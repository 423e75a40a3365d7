import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { truncateText } from '../core/truncate-text.js';
import { withFileLock } from '../sessions/file-lock.js';
import { readTextOrEmpty } from '../workspace/fs-helpers.js';
import { formatHistoryTimestamp } from './format-timestamp.js';
import type { HistoryAppendOptions } from './history-log.js';
import { stripReasoningLeaks } from './strip-reasoning-leaks.js';

/** Where consolidation writes its entries: `HistoryLog` (history.jsonl) or {@link LegacyHistoryFile}. */
export interface HistorySink {
  /** Appends one entry; resolves to its cursor when the format has cursors. */
  append(content: string, options?: HistoryAppendOptions): Promise<number | undefined>;
}

/** Options for {@link LegacyHistoryFile}. */
export type LegacyHistoryFileOptions = {
  /** The agent workspace; the file is `<workspace>/memory/HISTORY.md`. */
  readonly workspace: string;
  /** The clock for entry timestamps. @default the system clock */
  readonly now?: () => Date;
};

/**
 * The legacy `memory/HISTORY.md` (the older layout): consolidation appends one paragraph per entry,
 * `[YYYY-MM-DD HH:MM] text`, separated by blank lines. Appends are serialised by a lock file.
 */
export class LegacyHistoryFile implements HistorySink {
  /** The absolute path of HISTORY.md. */
  readonly path: string;
  readonly #now: () => Date;

  constructor(options: LegacyHistoryFileOptions) {
    this.path = path.join(options.workspace, 'memory', 'HISTORY.md');
    this.#now = options.now ?? (() => new Date());
  }

  /** The file's text, or `''` when it does not exist. */
  async read(): Promise<string> {
    return readTextOrEmpty(this.path);
  }

  async append(content: string, options: HistoryAppendOptions = {}): Promise<undefined> {
    const text = truncateText(stripReasoningLeaks(content.trimEnd()), options.maxChars ?? 64_000);
    await mkdir(path.dirname(this.path), { recursive: true });
    await withFileLock({ path: `${this.path}.lock` }, async () => {
      await appendFile(this.path, `[${formatHistoryTimestamp(this.#now())}] ${text}\n\n`, { mode: 0o600 });
    });
    return undefined;
  }
}
