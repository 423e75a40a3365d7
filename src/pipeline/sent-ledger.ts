import { apportionTokens } from '../core/apportion-tokens.js';
import { isRecord } from '../core/is-record.js';
import { visitListDelta } from '../core/list-delta.js';
import { type Message, sectionOf } from '../core/message.js';
import { sharedCopy } from '../core/shared-copy.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { SectionTokens } from './build-trace.js';

/** What a message adds to one section of the trace. */
type Row = {
  readonly section: string;
  readonly messages: number;
  readonly tokens: number;
  readonly partOf?: string;
};

/** A message of the list sent: its exact tokens, its rows, how often it occurs in the list. */
type Entry = {
  readonly tokens: number;
  readonly rows: readonly Row[];
  /** The sections its rows name, in order, with `partOf`: equal for messages that add to the same sections. */
  readonly shape: string;
  copies: number;
};

/** A section's running sums, and how many rows add to it. */
type Sum = { messages: number; tokens: number; rows: number };

/** What {@link SentLedger.update} gives for the list sent. */
export type SentFigures = {
  /** The exact tokens of the messages sent. */
  readonly tokens: number;
  /** The exact tokens of a message sent (`undefined` for one not sent). */
  readonly tokensOf: (message: Message) => number | undefined;
  /** The exact tokens of the message at `index` of the list sent (no lookup by message). */
  readonly tokensAt: (index: number) => number;
  /** The tokens per section, in the order the sections first appear; they add up to `tokens`. */
  readonly sections: readonly SectionTokens[];
};

/**
 * The exact tokens of the list a pipeline sends, per message and per section, kept up to date from
 * one build to the next: a list derived from the last one (the window moved) is counted only where
 * it changed (`visitListDelta`), and the per-section sums are adjusted by the rows of the messages
 * removed and added. Each message adds one row to its section (`metadata.section`, else `unknown`),
 * or, when it was joined from several sections (`metadata.parts: [{ section, chars }]`), one row per
 * part with its share of the tokens in proportion to the part's characters (the first part counts
 * the message). A section's `partOf` is that of its first row in the list. Finding the order of the
 * sections walks the entries kept by position (one comparison of their shapes per message), never
 * the messages. @internal
 */
export class SentLedger {
  readonly #counter: TokenCounter;
  /** A copy of the last list sent, and the entry of each of its messages by position. */
  #last: { readonly messages: readonly Message[]; readonly entries: readonly Entry[] } | undefined;
  readonly #entries = new Map<Message, Entry>();
  readonly #sums = new Map<string, Sum>();
  #tokens = 0;

  constructor(counter: TokenCounter) {
    this.#counter = counter;
  }

  /** The figures of `messages`, the list sent now. */
  update(messages: readonly Message[]): SentFigures {
    const entries = new Array<Entry>(messages.length);
    const last = this.#last;
    if (last === undefined)
      messages.forEach((message, index) => {
        entries[index] = this.#add(message);
      });
    else
      visitListDelta(
        { before: last.messages, after: messages },
        {
          removed: (message) => this.#remove(message),
          added: (message, at) => {
            entries[at] = this.#add(message);
          },
          kept: ({ from, to, length }) => {
            for (let offset = 0; offset < length; offset += 1)
              entries[to + offset] = last.entries[from + offset] as Entry; // within last.messages
          },
        },
      );
    this.#last = { messages: sharedCopy(messages), entries };
    return {
      tokens: this.#tokens,
      tokensOf: (message) => this.#entries.get(message)?.tokens,
      tokensAt: (index) => entries[index]?.tokens ?? 0,
      sections: this.#sections(entries),
    };
  }

  #add(message: Message): Entry {
    let entry = this.#entries.get(message);
    if (entry === undefined) {
      const tokens = this.#counter.countMessage(message);
      const rows = rowsOf(message, tokens);
      const shape = rows.map((row) => `${row.section}\u0000${row.partOf ?? ''}`).join('\u0001');
      entry = { tokens, rows, shape, copies: 0 };
      this.#entries.set(message, entry);
    }
    entry.copies += 1;
    this.#tokens += entry.tokens;
    this.#addRows(entry.rows, 1);
    return entry;
  }

  #remove(message: Message): void {
    const entry = this.#entries.get(message) as Entry; // every message of the last list has one
    entry.copies -= 1;
    if (entry.copies === 0) this.#entries.delete(message);
    this.#tokens -= entry.tokens;
    this.#addRows(entry.rows, -1);
  }

  #addRows(rows: readonly Row[], sign: number): void {
    for (const row of rows) {
      let sum = this.#sums.get(row.section);
      if (sum === undefined) {
        sum = { messages: 0, tokens: 0, rows: 0 };
        this.#sums.set(row.section, sum);
      }
      sum.messages += sign * row.messages;
      sum.tokens += sign * row.tokens;
      sum.rows += sign;
      if (sum.rows === 0) this.#sums.delete(row.section);
    }
  }

  /** The sections in the order they first appear, found from the entries' shapes by position. */
  #sections(entries: readonly Entry[]): readonly SectionTokens[] {
    const out: SectionTokens[] = [];
    const seen = new Set<string>();
    let previous: string | undefined;
    for (const { shape, rows } of entries) {
      if (shape === previous) continue;
      previous = shape;
      for (const row of rows) {
        if (seen.has(row.section)) continue;
        seen.add(row.section);
        const sum = this.#sums.get(row.section) as Sum; // a row of the list adds to it
        out.push({
          section: row.section,
          messages: sum.messages,
          tokens: sum.tokens,
          ...(row.partOf === undefined ? {} : { partOf: row.partOf }),
        });
      }
    }
    return out;
  }
}

/** The rows `message` (of `tokens` exact tokens) adds to the trace's sections. */
function rowsOf(message: Message, tokens: number): readonly Row[] {
  const parts = joinedParts(message);
  if (parts === undefined) return [{ section: sectionOf(message) ?? 'unknown', messages: 1, tokens }];
  const shares = apportionTokens(
    tokens,
    parts.map((part) => part.chars),
  );
  const partOf = sectionOf(message) ?? 'unknown';
  return parts.map((part, index) => ({
    section: part.section,
    messages: index === 0 ? 1 : 0,
    tokens: shares[index] ?? 0,
    partOf,
  }));
}

/**
 * The parts of a message joined from several sections (`metadata.parts: [{ section, chars }]`, as the
 * system-message join filter records them), so the trace can show each part's tokens.
 */
function joinedParts(message: Message): readonly { section: string; chars: number }[] | undefined {
  const parts = message.metadata?.['parts'];
  if (!Array.isArray(parts) || parts.length < 2) return undefined;
  const valid = parts.flatMap((part: unknown) => {
    if (!isRecord(part)) return [];
    const { section, chars } = part;
    return typeof section === 'string' && typeof chars === 'number' ? [{ section, chars }] : [];
  });
  return valid.length === parts.length ? valid : undefined;
}
