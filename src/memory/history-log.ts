import { appendFile, mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { truncateText } from '../core/truncate-text.js';
import { withFileLock } from '../sessions/file-lock.js';
import { atomicWriteFile } from '../workspace/atomic-write.js';
import { type CachedTextFile, WorkspaceFileCache } from '../workspace/file-cache.js';
import { endsWithNewline, readTextOrEmpty } from '../workspace/fs-helpers.js';
import { formatHistoryTimestamp } from './format-timestamp.js';
import {
  formatHistoryLine,
  type HistoryEntry,
  type HistoryWarning,
  isInternalSessionKey,
  isValidCursor,
  parseHistoryLine,
} from './history-entry.js';
import { stripReasoningLeaks } from './strip-reasoning-leaks.js';

/** Options for {@link HistoryLog}. */
export type HistoryLogOptions = {
  /** The agent workspace; the log lives in `<workspace>/memory/`. */
  readonly workspace: string;
  /** The clock for entry timestamps. @default the system clock */
  readonly now?: () => Date;
  /** How long to wait for the cross-process lock. @default 30000 */
  readonly lockTimeoutMs?: number;
};

/** Options for {@link HistoryLog.append}. */
export type HistoryAppendOptions = {
  /** The session the entry came from (`session_key`). */
  readonly sessionKey?: string;
  /** Entries longer than this are truncated with the truncation suffix. @default 64000 */
  readonly maxChars?: number;
  /** The entry's `YYYY-MM-DD HH:MM` timestamp (migrations keep the original one). @default now */
  readonly timestamp?: string;
};

/** Options for {@link HistoryLog.readRecent}. */
export type ReadRecentOptions = {
  /** Only entries with a larger cursor (usually the Dream cursor). @default 0 */
  readonly sinceCursor?: number;
  /** Scope to this session; absent → every entry. */
  readonly sessionKey?: string;
  /** Unified mode: also entries without a key or from other non-internal sessions. @default false */
  readonly unified?: boolean;
};

/** What {@link HistoryLog.compact} did. */
export type HistoryCompaction = {
  /** Old valid entries dropped. */
  readonly removed: number;
  /** Unreadable lines among them, moved to `history.jsonl.corrupt` (not lost). */
  readonly setAside: number;
};

/** What {@link HistoryLog.readWithWarnings} found. */
export type HistoryRead = {
  readonly entries: readonly HistoryEntry[];
  readonly warnings: readonly HistoryWarning[];
};

/** The default cap of {@link HistoryLog.append}, nanobot's 64,000 characters. */
export const DEFAULT_HISTORY_MAX_CHARS = 64_000;

/**
 * `memory/history.jsonl`: the append-only journal of consolidation summaries, with nanobot's cursor
 * rules. Cursors are allocated under a cross-process lock (`memory/.history.lock`) as
 * `max(counter file, last valid cursor in the file) + 1`, so they stay strictly monotonic with
 * concurrent writers, a lost counter file or a compacted log. Corrupt lines are skipped by readers
 * (see {@link HistoryLog.readWithWarnings}) and never rewritten away by `append`.
 */
export class HistoryLog {
  /** `memory/history.jsonl`. */
  readonly path: string;
  /** `memory/.cursor`: the last allocated cursor. */
  readonly cursorPath: string;
  /** `memory/.dream_cursor`: the last cursor the memory writer processed. */
  readonly dreamCursorPath: string;
  /** `memory/history.jsonl.corrupt`: unreadable lines compaction moved out of the log. */
  readonly corruptPath: string;
  readonly #lockPath: string;
  readonly #now: () => Date;
  readonly #lockTimeoutMs: number;
  /** history.jsonl and the two cursor files as last read: each is re-read only when it changed. */
  readonly #files = new WorkspaceFileCache({ maxEntries: 3 });
  /** The entries parsed from the last text read (`undefined` file: the log was missing). */
  #parsed: { readonly file: CachedTextFile | undefined; readonly read: HistoryRead } | undefined;
  /** The last `readRecent` answer and what it was asked. */
  #recent:
    | {
        readonly all: readonly HistoryEntry[];
        readonly since: number;
        readonly key: string | undefined;
        readonly unified: boolean;
        readonly entries: readonly HistoryEntry[];
      }
    | undefined;

  constructor(options: HistoryLogOptions) {
    const dir = path.join(options.workspace, 'memory');
    this.path = path.join(dir, 'history.jsonl');
    this.cursorPath = path.join(dir, '.cursor');
    this.dreamCursorPath = path.join(dir, '.dream_cursor');
    this.corruptPath = path.join(dir, 'history.jsonl.corrupt');
    this.#lockPath = path.join(dir, '.history.lock');
    this.#now = options.now ?? (() => new Date());
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  /** Every valid entry, oldest first. */
  async read(): Promise<readonly HistoryEntry[]> {
    return (await this.readWithWarnings()).entries;
  }

  /** Every valid entry plus one warning per skipped line (1-based line numbers). */
  async readWithWarnings(): Promise<HistoryRead> {
    const file = await this.#files.readIfExists(this.path);
    const last = this.#parsed;
    if (last !== undefined && last.file === file) return last.read;
    const read = parseHistoryText(file?.text ?? '');
    this.#parsed = { file, read };
    return read;
  }

  /**
   * nanobot's `read_recent_history_for_prompt`: entries after `sinceCursor`, scoped by session. While
   * the log and the options are unchanged, the same array is returned (so a prompt built from it can
   * be kept by identity).
   */
  async readRecent(options: ReadRecentOptions = {}): Promise<readonly HistoryEntry[]> {
    const since = options.sinceCursor ?? 0;
    const key = options.sessionKey;
    const unified = options.unified === true;
    const all = await this.read();
    const last = this.#recent;
    if (last?.all === all && last.since === since && last.key === key && last.unified === unified)
      return last.entries;
    const entries = all.filter((entry) => {
      if (entry.cursor <= since) return false;
      if (key === undefined) return true;
      if (entry.sessionKey === key) return true;
      if (!unified) return false;
      return entry.sessionKey === undefined || !isInternalSessionKey(entry.sessionKey);
    });
    this.#recent = { all, since, key, unified, entries };
    return entries;
  }

  /**
   * Appends one entry and resolves to its cursor. The text is right-trimmed, stripped of reasoning
   * leaks (a leak-only entry is stored as `''`) and truncated to `maxChars`.
   */
  async append(content: string, options: HistoryAppendOptions = {}): Promise<number> {
    const trimmed = content.trimEnd();
    const stripped = stripReasoningLeaks(trimmed);
    const text = truncateText(stripped, options.maxChars ?? DEFAULT_HISTORY_MAX_CHARS);
    await mkdir(path.dirname(this.path), { recursive: true });
    return withFileLock({ path: this.#lockPath, timeoutMs: this.#lockTimeoutMs }, async () => {
      const cursor = (await this.#lastCursor()) + 1;
      const entry: HistoryEntry = {
        cursor,
        timestamp: options.timestamp ?? formatHistoryTimestamp(this.#now()),
        content: text,
        ...(options.sessionKey === undefined ? {} : { sessionKey: options.sessionKey }),
      };
      const prefix = (await endsWithNewline(this.path)) ? '' : '\n';
      await writeFile(this.path, `${prefix}${formatHistoryLine(entry)}\n`, { flag: 'a', mode: 0o600 });
      await writeFile(this.cursorPath, `${cursor}\n`);
      return cursor;
    });
  }

  /**
   * nanobot's `compact_history`: when the log holds more than `maxEntries` valid entries, drops the
   * oldest ones, but never an entry the Dream cursor has not passed (so the result may stay above the
   * limit). Rewrites atomically under the lock, keeping every line after the first kept entry byte for
   * byte (unreadable ones included); unreadable lines among the dropped old entries are appended to
   * `history.jsonl.corrupt` first, never destroyed.
   */
  async compact(options: { readonly maxEntries?: number } = {}): Promise<HistoryCompaction> {
    const maxEntries = options.maxEntries ?? 1000;
    await mkdir(path.dirname(this.path), { recursive: true });
    return withFileLock({ path: this.#lockPath, timeoutMs: this.#lockTimeoutMs }, async () => {
      const lines = (await readTextOrEmpty(this.path)).split('\n').filter((line) => line.trim() !== '');
      const parsed = lines.map(parseHistoryLine);
      const valid = parsed.flatMap((entry, line) => (typeof entry === 'string' ? [] : [{ entry, line }]));
      const dream = await this.readDreamCursor();
      const firstUnprocessed = valid.findIndex(({ entry }) => entry.cursor > dream);
      const drop = Math.min(
        valid.length - maxEntries,
        firstUnprocessed >= 0 ? firstUnprocessed : Number.POSITIVE_INFINITY,
      );
      const firstKept = valid[drop]?.line ?? lines.length;
      if (drop <= 0) return { removed: 0, setAside: 0 };
      const unreadable = lines.slice(0, firstKept).filter((_, line) => typeof parsed[line] === 'string');
      if (unreadable.length > 0)
        await appendFile(this.corruptPath, `${unreadable.join('\n')}\n`, { mode: 0o600 });
      const latest = await this.#lastCursor();
      const kept = lines.slice(firstKept);
      await atomicWriteFile(this.path, kept.length === 0 ? '' : `${kept.join('\n')}\n`);
      await writeFile(this.cursorPath, `${latest}\n`);
      return { removed: drop, setAside: unreadable.length };
    });
  }

  /**
   * Writes `entries` as the log's first entries, cursors 1…n, atomically, and sets both `.cursor` and
   * the Dream cursor to n (imported history counts as processed). Writes nothing and resolves to
   * `undefined` when history.jsonl already has content (one byte is enough), so an import never
   * duplicates entries.
   */
  async writeInitialEntries(
    entries: readonly {
      readonly timestamp: string;
      readonly content: string;
      readonly sessionKey?: string;
    }[],
  ): Promise<number | undefined> {
    await mkdir(path.dirname(this.path), { recursive: true });
    return withFileLock({ path: this.#lockPath, timeoutMs: this.#lockTimeoutMs }, async () => {
      if ((await readTextOrEmpty(this.path)) !== '') return undefined;
      if (entries.length === 0) return 0;
      const lines = entries.map((entry, index) => formatHistoryLine({ ...entry, cursor: index + 1 }));
      await atomicWriteFile(this.path, `${lines.join('\n')}\n`, { mode: 0o600 });
      await writeFile(this.cursorPath, `${entries.length}\n`);
      await atomicWriteFile(this.dreamCursorPath, `${entries.length}\n`);
      return entries.length;
    });
  }

  /** The last allocated cursor (0 when nothing was ever written). */
  async latestCursor(): Promise<number> {
    return this.#lastCursor();
  }

  /** The Dream cursor: the last history cursor the memory writer processed (0 when unset or invalid). */
  async readDreamCursor(): Promise<number> {
    return (await this.#readCounter(this.dreamCursorPath)) ?? 0;
  }

  /** Sets the Dream cursor (atomic write). */
  async writeDreamCursor(cursor: number): Promise<void> {
    if (!isValidCursor(cursor)) {
      throw new ContextError({
        code: 'INVALID_INPUT',
        message: `The Dream cursor must be an integer ≥ 0, got ${cursor}; pass a cursor from history.jsonl.`,
      });
    }
    await mkdir(path.dirname(this.dreamCursorPath), { recursive: true });
    await atomicWriteFile(this.dreamCursorPath, `${cursor}\n`);
  }

  /** The value of a cursor file (`undefined` when missing or not a valid cursor). */
  async #readCounter(file: string): Promise<number | undefined> {
    return parseCounter((await this.#files.readIfExists(file))?.text ?? '');
  }

  /**
   * `max(counter file, last valid cursor in the file)`: the tail (last 64 KiB) is read first; only
   * when its last line is not a valid entry is the whole file scanned for the largest valid cursor.
   */
  async #lastCursor(): Promise<number> {
    const counter = (await this.#readCounter(this.cursorPath)) ?? 0;
    const tail = await tailCursor(this.path);
    if (tail !== undefined) return Math.max(counter, tail);
    const entries = await this.read();
    return Math.max(counter, ...entries.map((entry) => entry.cursor));
  }
}

/** A cursor file's value: a whole number ≥ 0 on its own, else `undefined`. */
function parseCounter(raw: string): number | undefined {
  const text = raw.trim();
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return isValidCursor(value) ? value : undefined;
}

const TAIL_BYTES = 65_536;

/** The cursor of the file's last line when that line is a valid entry; `undefined` otherwise. */
async function tailCursor(file: string): Promise<number | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return 0;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const last = lines.at(-1);
    // A line cut by the 64 KiB window is never the last one unless the entry itself is longer.
    const parsed =
      last === undefined || (lines.length === 1 && size > length) ? undefined : parseHistoryLine(last);
    return parsed === undefined || typeof parsed === 'string' ? undefined : parsed.cursor;
  } finally {
    await handle.close();
  }
}

/** The valid entries of a history.jsonl text and one warning per unreadable line. */
function parseHistoryText(text: string): HistoryRead {
  const entries: HistoryEntry[] = [];
  const warnings: HistoryWarning[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const parsed = parseHistoryLine(line);
    if (typeof parsed === 'string') warnings.push({ line: index + 1, reason: parsed });
    else entries.push(parsed);
  });
  return { entries, warnings };
}
