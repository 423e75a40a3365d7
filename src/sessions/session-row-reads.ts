import type { Message } from '../core/message.js';
import { firstIndexOf } from './last-messages.js';
import { parseMessageRow, type SessionRow, sessionRecordFromRow } from './session-row.js';
import type { SessionRecord } from './session-store.js';

/** The default limit of the SQL stores' `cachedSessionChars`: 64 Mi characters of row text. */
export const DEFAULT_CACHED_SESSION_CHARS = 64 * 1024 * 1024;

/** A stored message row as the SQL stores select it. */
export type MessageRow = { readonly seq: number; readonly data: string };

/** The last load of one session: its row then and the messages parsed from its message rows. */
type KnownRows = {
  readonly row: SessionRow;
  /** The `seq` of the first row parsed (a load of the newest messages starts past 0). */
  readonly firstIndex: number;
  /**
   * The messages of the rows from `firstIndex` on. This cache's own list: it grows in place when rows
   * are appended and is never handed out (records get copies), so no record a load returned changes.
   */
  readonly messages: Message[];
  /** The record of a load of every message, once one was asked for. */
  whole?: SessionRecord;
  /** The stored text of the last message row (checked again before new rows are appended to it). */
  readonly lastData: string | undefined;
  /** The characters of every row's text, for the cache's limit. */
  readonly chars: number;
};

/** The message rows a load selected: those with `seq` from `from` on, in order. */
export type SelectedRows = { readonly from: number; readonly rows: readonly MessageRow[] };

/**
 * What the SQL stores (SQLite, PostgreSQL) keep of their last loads, so a long-lived agent that loads
 * its session every turn reads and parses only the rows appended since: the messages come back as
 * the same objects, and what a builder learnt about them by identity is reused. A load of the newest
 * `lastMessages` selects only those rows the first time, and copies only those after.
 *
 * The rule: the store's schema bumps a session's `generation` whenever one of its message rows is
 * deleted or updated (database triggers, so any writer counts, an older ctxloom or a hand-written
 * `DELETE` included), and a session row made anew starts from a random generation. So a session
 * whose generation and creation time are as last loaded, with no fewer messages, kept its old rows,
 * and only the rows from the last known one on are read; the last known row is compared again as a
 * check. Anything else reads every row wanted. Keeps up to `maxChars` of row text in all, and always
 * the session loaded last. @internal
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

  /**
   * The first message row to select for `row` when the newest `lastMessages` are wanted: the last one
   * known (a check) when what is known covers them, else the first one wanted.
   */
  firstRow(row: SessionRow, lastMessages: number): number {
    const wanted = firstIndexOf(row.message_count, lastMessages);
    const known = this.#reusable(row, wanted);
    return known === undefined ? wanted : Math.max(known.firstIndex, endOf(known) - 1);
  }

  /**
   * The session's record from `selected` (rows from `firstRow(row, lastMessages)` on), or `undefined`
   * when they do not continue what was loaded before: then select from `firstIndexOf(count,
   * lastMessages)` on and call `read`.
   */
  record(
    row: SessionRow,
    run: { readonly selected: SelectedRows; readonly lastMessages: number },
  ): SessionRecord | undefined {
    const { from, rows } = run.selected;
    const wanted = firstIndexOf(row.message_count, run.lastMessages);
    const known = this.#reusable(row, wanted);
    if (known === undefined || from !== Math.max(known.firstIndex, endOf(known) - 1))
      return from === wanted
        ? this.read(row, { selected: run.selected, lastMessages: run.lastMessages })
        : undefined;
    if (!isComplete(row, run.selected)) return undefined;
    const kept = known.messages.length > 0;
    if (kept && rows[0]?.data !== known.lastData) return undefined;
    const added = kept ? rows.slice(1) : rows;
    if (added.length === 0 && sameRow(row, known.row)) {
      this.#touch(row.key, known);
      return recordOf(known, wanted);
    }
    // Parsed before the list grows: a corrupt row (which throws) leaves what is known as it was.
    const parsed = added.map((entry) => this.#parse(row, entry));
    for (const message of parsed) known.messages.push(message);
    return recordOf(
      this.#remember(row, {
        firstIndex: known.firstIndex,
        messages: known.messages,
        lastData: rows.at(-1)?.data ?? known.lastData,
        chars: known.chars + added.reduce((sum, entry) => sum + entry.data.length, 0),
      }),
      wanted,
    );
  }

  /**
   * The session's record from the rows selected from `firstIndexOf(count, lastMessages)` on (what a
   * load does when `record` declines).
   */
  read(
    row: SessionRow,
    run: { readonly selected: SelectedRows; readonly lastMessages: number },
  ): SessionRecord {
    const { from, rows } = run.selected;
    const known = {
      firstIndex: from,
      messages: rows.map((entry) => this.#parse(row, entry)),
      lastData: rows.at(-1)?.data,
      chars: rows.reduce((sum, entry) => sum + entry.data.length, 0),
    };
    const kept = isComplete(row, run.selected) ? this.#remember(row, known) : { ...known, row };
    return recordOf(kept, firstIndexOf(row.message_count, run.lastMessages));
  }

  /** Forgets what was loaded of `key` (a session deleted or missing). */
  forget(key: string): void {
    const known = this.#known.get(key);
    if (known === undefined) return;
    this.#known.delete(key);
    this.#chars -= known.chars;
  }

  /** What is known of `row`'s session, when it still holds and covers the messages from `wanted` on. */
  #reusable(row: SessionRow, wanted: number): KnownRows | undefined {
    const known = this.#known.get(row.key);
    if (known === undefined) return undefined;
    const kept =
      String(known.row.generation) === String(row.generation) &&
      known.row.created_at === row.created_at &&
      row.message_count >= endOf(known) &&
      known.firstIndex <= wanted;
    return kept ? known : undefined;
  }

  #parse(row: SessionRow, entry: MessageRow): Message {
    return parseMessageRow(entry.data, { backend: this.#backend, key: row.key });
  }

  #remember(row: SessionRow, read: Omit<KnownRows, 'row' | 'whole'>): KnownRows {
    const known: KnownRows = { ...read, row };
    if (this.#maxChars <= 0) return known;
    this.forget(row.key);
    this.#touch(row.key, known);
    this.#chars += known.chars;
    for (const [key, entry] of this.#known) {
      if (this.#chars <= this.#maxChars || entry === known) break;
      this.forget(key);
    }
    return known;
  }

  /** Marks `known` as the most recently used. */
  #touch(key: string, known: KnownRows): void {
    this.#known.delete(key);
    this.#known.set(key, known);
  }
}

/** The index after the last message known. */
function endOf(known: Pick<KnownRows, 'firstIndex' | 'messages'>): number {
  return known.firstIndex + known.messages.length;
}

/** True when `selected` holds every row of `row`'s session from its `from` on, in `seq` order. */
function isComplete(row: SessionRow, selected: SelectedRows): boolean {
  const { from, rows } = selected;
  return rows.length === row.message_count - from && rows.every((entry, index) => entry.seq === from + index);
}

/** The record of what is known, with the messages from `wanted` on (copied). */
function recordOf(known: KnownRows, wanted: number): SessionRecord {
  const { row, messages, firstIndex } = known;
  if (wanted === 0 && firstIndex === 0) {
    known.whole ??= sessionRecordFromRow(row, { messages: messages.slice(), count: messages.length });
    return known.whole;
  }
  const record = sessionRecordFromRow(row, { messages, count: firstIndex + messages.length });
  return { ...record, messages: messages.slice(wanted - firstIndex), firstIndex: wanted };
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
