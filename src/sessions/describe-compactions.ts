import { applyCompactions } from '../core/apply-compactions.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { LineageViolation } from '../core/lineage-violation.js';
import type { Message } from '../core/message.js';
import { sessionCompactions } from './session-compactions.js';
import type { SessionRecord } from './session-store.js';

/** One id a compaction record replaces or pins, resolved against the session. */
export type CompactionItem =
  /** A raw message of the session, exactly as stored. */
  | { readonly type: 'message'; readonly id: string; readonly message: Message }
  /** An earlier record (a chained compaction's parent), described in its own entry. */
  | { readonly type: 'record'; readonly id: string }
  /** An id that is neither among the loaded messages nor an earlier record (e.g. after a rewind). */
  | { readonly type: 'missing'; readonly id: string };

/** A compaction record as `ctxloom session show` and the inspector list it. */
export type CompactionDescription = {
  /** The record as stored (or, for `kind: 'consolidation'`, derived from nanobot's cursor). */
  readonly record: CompactionRecord;
  /** `tokensBefore − tokensAfter`, as counted when the record was made (negative if it grew). */
  readonly tokensSaved: number;
  /** True when the view applies the record; false when it does not fit (see `violations`). */
  readonly isApplied: boolean;
  /** Why the view leaves the record out; empty when it applies. */
  readonly violations: readonly LineageViolation[];
  /** What the record stands for, in its `replaces` order: raw messages and parent records. */
  readonly replaced: readonly CompactionItem[];
  /** The messages it kept verbatim after its summary, in its `pinned` order. */
  readonly pinned: readonly CompactionItem[];
};

/**
 * The compaction records of a loaded session (`sessionCompactions`: nanobot's consolidation cursor
 * first, then the stored records, in the order they were made), each with what it replaced (the raw
 * messages with their ids, and the parent records of a chained compaction), the messages it pinned,
 * the tokens it saved and whether the session's view applies it. Pure; give it a whole load (a load
 * with `lastMessages` leaves the older messages `missing`).
 */
export function describeCompactions(session: SessionRecord): readonly CompactionDescription[] {
  const records = sessionCompactions(session);
  if (records.length === 0) return [];
  const messages = new Map(session.messages.map((message) => [message.id, message]));
  const { violations, applied } = applyCompactions(session.messages, records);
  const isApplied = new Set(applied);
  const known = new Set<string>();
  return records.map((record) => {
    const item = (id: string): CompactionItem => {
      const message = messages.get(id);
      if (message !== undefined) return { type: 'message', id, message };
      return known.has(id) ? { type: 'record', id } : { type: 'missing', id };
    };
    const description: CompactionDescription = {
      record,
      tokensSaved: record.tokensBefore - record.tokensAfter,
      isApplied: isApplied.has(record.id),
      violations: violations.filter((violation) => violation.recordId === record.id),
      replaced: record.replaces.map(item),
      pinned: (record.pinned ?? []).map(item),
    };
    known.add(record.id);
    return description;
  });
}
