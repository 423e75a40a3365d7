import type { Message } from '../core/message.js';
import { parseMessageRow, type SessionRow, sessionRecordFromRow } from './session-row.js';
import type { SessionRecord } from './session-store.js';

/** The default limit of the SQL stores' `cachedSessionChars`: 64 Mi characters of row text. */
export const DEFAULT_CACHED_SESSION_CHARS = 64 * 1024 * 1024;

/** A stored message row as the SQL stores select it. */
export type MessageRow = { readonly seq: number; readonly data: string };

/** The last load of one session: its row then and the messages parsed from its message rows. */
type KnownRows = {
  readonly row: SessionRow;
  readonly record: SessionRecord;
  /** The stored text of the last message row (checked again before new rows are appended to it). */
  readonly lastData: string | undefined;
  /** The characters of every row's text, for the cache's limit. */
  readonly chars: number;
};

/**
 * What the SQL stores (SQLite, PostgreSQL) keep of their last loads, so a long-lived agent that loads
 * its session every turn reads and parses only the rows appended since: the messages come back as
 * the same objects, and what a builder learnt about them by identity is reused.
 *
 * The rule: the store's schema bumps a session's `generation` whenever one of its message rows is
 * deleted or updated (database triggers, so any writer counts, an older ctxloom or a hand-written
 * `DELETE` included), and a session row made anew starts from a random generation. So a session
 * whose generation and creation time are as last loaded, with no fewer messages, kept its old rows,
 * and only the rows from the last known one on are read; the last known row is compared again as a
 * check. Anything else reads every row. Keeps up to `maxChars` of row text in all, and always the
 * session loaded last. @internal
 */
export class SessionRowReads {
  readonly #backend: string;
  readonly #maxChars: number;
  readonly #known = new Map<string, KnownRows>();
  #chars = 0;

  constructor(options: { readonly backend: string; readonly maxChars: number }) {
    this.#backend = options.backend;
    this.#maxChars = options.maxChars;
  }

  /** The first message row to select for `row`: 0 (every row), or the last one known (a check) and on. */
  firstRow(row: SessionRow): number {
    return Math.max(0, (this.#reusable(row)?.record.messages.length ?? 0) - 1);
  }

  /**
   * The session's record from `rows` (selected from `firstRow(row)` on, in `seq` order), or `undefined`
   * when they do not continue what was loaded before: then select every row and call `whole`.
   */
  record(
    row: SessionRow,
    selected: { readonly from: number; readonly rows: readonly MessageRow[] },
  ): SessionRecord | undefined {
    const { from, rows } = selected;
    const known = this.#reusable(row);
    const kept = known?.record.messages.length ?? 0;
    const complete =
      rows.length === row.message_count - from && rows.every((entry, index) => entry.seq === from + index);
    if (known === undefined || from !== Math.max(0, kept - 1) || !complete)
      return from === 0 ? this.whole(row, rows) : undefined;
    if (kept > 0 && rows[0]?.data !== known.lastData) return undefined;
    const added = kept > 0 ? rows.slice(1) : rows;
    if (added.length === 0 && sameRow(row, known.row)) {
      this.#touch(row.key, known);
      return known.record;
    }
    const messages = known.record.messages.concat(added.map((entry) => this.#parse(row, entry)));
    return this.#remember(row, {
      messages,
      lastData: rows.at(-1)?.data,
      chars: known.chars + added.reduce((sum, entry) => sum + entry.data.length, 0),
    });
  }

  /** Forgets what was loaded of `key` (a session deleted or missing). */
  forget(key: string): void {
    const known = this.#known.get(key);
    if (known === undefined) return;
    this.#known.delete(key);
    this.#chars -= known.chars;
  }

  #reusable(row: SessionRow): KnownRows | undefined {
    const known = this.#known.get(row.key);
    if (known === undefined) return undefined;
    const kept =
      String(known.row.generation) === String(row.generation) &&
      known.row.created_at === row.created_at &&
      row.message_count >= known.record.messages.length;
    return kept ? known : undefined;
  }

  /** The session's record from all its rows, in `seq` order (what a load does when `record` declines). */
  whole(row: SessionRow, rows: readonly MessageRow[]): SessionRecord {
    return this.#remember(row, {
      messages: rows.map((entry) => this.#parse(row, entry)),
      lastData: rows.at(-1)?.data,
      chars: rows.reduce((sum, entry) => sum + entry.data.length, 0),
    });
  }

  #parse(row: SessionRow, entry: MessageRow): Message {
    return parseMessageRow(entry.data, { backend: this.#backend, key: row.key });
  }

  #remember(
    row: SessionRow,
    read: {
      readonly messages: readonly Message[];
      readonly lastData: string | undefined;
      readonly chars: number;
    },
  ): SessionRecord {
    const record = sessionRecordFromRow(row, read.messages);
    if (this.#maxChars <= 0) return record;
    this.forget(row.key);
    const known: KnownRows = { row, record, lastData: read.lastData, chars: read.chars };
    this.#touch(row.key, known);
    this.#chars += known.chars;
    for (const [key, entry] of this.#known) {
      if (this.#chars <= this.#maxChars || entry === known) break;
      this.forget(key);
    }
    return record;
  }

  /** Marks `known` as the most recently used. */
  #touch(key: string, known: KnownRows): void {
    this.#known.delete(key);
    this.#known.set(key, known);
  }
}

/** The same session row: every column equal (the generation compared as text: PostgreSQL's BIGINT is one). */
function sameRow(left: SessionRow, right: SessionRow): boolean {
  return (
    left.updated_at === right.updated_at &&
    left.metadata === right.metadata &&
    left.last_consolidated === right.last_consolidated &&
    left.message_count === right.message_count &&
    String(left.generation) === String(right.generation) &&
    left.created_at === right.created_at
  );
}
