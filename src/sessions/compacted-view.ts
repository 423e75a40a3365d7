import { applyCompactions } from '../core/apply-compactions.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { LineageViolation } from '../core/lineage-violation.js';
import type { Message } from '../core/message.js';
import type { ReplaySession } from './get-history.js';
import { sessionCompactions, storedCompactions } from './session-compactions.js';
import type { SessionRecord } from './session-store.js';

/**
 * The session as the model sees it when it has compaction records: the view (summaries in place of
 * what they replace; nanobot's consolidation cursor is its first record, so the view starts after
 * it), as a whole replay session. A record of the newest messages only (`firstIndex`, a load with
 * `lastMessages`) gives the same view as the whole session when the records account for every
 * message before the loaded ones (see {@link partialView}); `undefined` when they do not, or cannot be
 * shown to (load more). A session without stored records is returned as it is. @internal
 */
export function compactedView(
  record: SessionRecord,
): (ReplaySession & { readonly warnings: readonly string[] }) | undefined {
  if (storedCompactions(record).length === 0) return record;
  if ((record.firstIndex ?? 0) === 0) {
    const { firstIndex: _firstIndex, ...whole } = record;
    const { view, violations } = applyCompactions(whole.messages, sessionCompactions(whole));
    return {
      ...whole,
      messages: view,
      lastConsolidated: 0,
      warnings: withViolations(whole.warnings, violations),
    };
  }
  return partialView(record);
}

/**
 * The session's load warnings plus one per compaction record its view leaves out (a record that no
 * longer fits the messages, e.g. after a rewind: the messages it stood for are replayed raw), so a
 * build says why a summary it expected is missing. `loadReplayedSession` returns them in its record's
 * `warnings`; use this for a session you replay yourself (`replaySession`).
 */
export function lineageWarnings(record: SessionRecord): readonly string[] {
  if (storedCompactions(record).length === 0) return record.warnings;
  const { violations } = applyCompactions(record.messages, sessionCompactions(record));
  return withViolations(record.warnings, violations);
}

function withViolations(
  warnings: readonly string[],
  violations: readonly LineageViolation[],
): readonly string[] {
  if (violations.length === 0) return warnings;
  return [
    ...warnings,
    ...violations.map(
      (violation) =>
        `Compaction record ${violation.recordId} is not applied (${violation.type}: ${violation.message}); the messages it stood for are replayed as they are. 'ctxloom session show' lists the records.`,
    ),
  ];
}

/**
 * Where a whole-session view could start being loaded from, for a record of the newest messages that
 * {@link compactedView} could not use: the position just before the first message the stored records
 * do not name, when that lies before the loaded ones (`undefined` otherwise: load the whole session).
 * `seam` messages the records do name are included, so the next load can check its boundary. @internal
 */
export function compactedViewStart(record: SessionRecord, seam: number): number | undefined {
  const firstIndex = record.firstIndex ?? 0;
  if (firstIndex === 0) return undefined;
  const outside = namedBefore(record, storedCompactions(record)).outside.size;
  const start = Math.max(record.lastConsolidated, 0) + outside - seam;
  return start > 0 && start < firstIndex ? start : undefined;
}

/**
 * The whole session's view from its newest messages, when the records account for every message
 * before them: the unloaded messages are taken to be nanobot-consolidated ones followed by exactly the
 * raw messages the records name and the loaded ones do not hold, in the order of the one outermost
 * record that covers them all (a compaction chain over the start of the session). That is accepted
 * only when it is the one arrangement consistent with what was loaded: the count matches the loaded
 * record's `firstIndex`, the first loaded message is one that outermost record covers (so its run
 * reaches into the loaded messages: a history cut back and regrown under other ids is noticed), it is
 * not a tool result (whose call would be among the unloaded ones), no record pins an unloaded message,
 * and every record applies with no unloaded message left in the view. Records made by
 * `appendCompaction` were checked against the whole session under its lock, so the unloaded messages'
 * order and transactions are as it saw them unless a rewrite replaced them since.
 */
function partialView(
  record: SessionRecord,
): (ReplaySession & { readonly warnings: readonly string[] }) | undefined {
  const firstIndex = record.firstIndex ?? 0;
  const first = record.messages[0];
  if (first === undefined || first.role === 'tool') return undefined;
  const stored = storedCompactions(record);
  const { outside, byId, named } = namedBefore(record, stored);
  const pinnedOutside = stored.some((compaction) => (compaction.pinned ?? []).some((id) => outside.has(id)));
  if (pinnedOutside) return undefined;
  const top = stored.find(
    (compaction) =>
      !named.has(compaction.id) &&
      chainOf(compaction, byId).some(
        (link) => link.replaces.includes(first.id) || (link.pinned ?? []).includes(first.id),
      ),
  );
  if (top === undefined) return undefined;
  const ordered = flatten(top, byId).filter((id) => outside.has(id));
  const consolidated = firstIndex - ordered.length;
  if (ordered.length !== outside.size || consolidated < 0 || record.lastConsolidated < consolidated)
    return undefined;
  const messages: Message[] = [];
  for (let index = 0; index < consolidated; index += 1) messages.push(standIn(`\u0000unloaded-${index}`));
  for (const id of ordered) messages.push(standIn(id));
  for (const message of record.messages) messages.push(message);
  const { firstIndex: _firstIndex, ...newest } = record;
  const whole = { ...newest, messages };
  const { view, violations } = applyCompactions(messages, sessionCompactions(whole));
  if (violations.length > 0 || view.some((message) => message.metadata === UNLOADED)) return undefined;
  return { ...whole, messages: view, lastConsolidated: 0 };
}

/** The metadata of the stand-ins for unloaded messages (compared by identity). */
const UNLOADED = Object.freeze({});

/** A stand-in for an unloaded message: its id, no text, no tool calls. */
function standIn(id: string): Message {
  return { id, role: 'user', content: '', metadata: UNLOADED };
}

/**
 * The raw ids the stored records name (replaced or pinned) that the loaded messages do not hold
 * (`outside`), the records by id, and every id a record replaces (`named`).
 */
function namedBefore(
  record: SessionRecord,
  stored: readonly CompactionRecord[],
): {
  readonly outside: ReadonlySet<string>;
  readonly byId: ReadonlyMap<string, CompactionRecord>;
  readonly named: ReadonlySet<string>;
} {
  const loaded = new Set(record.messages.map((message) => message.id));
  const byId = new Map(stored.map((compaction) => [compaction.id, compaction]));
  const outside = new Set<string>();
  const named = new Set<string>();
  for (const compaction of stored) {
    for (const id of compaction.replaces) named.add(id);
    for (const id of [...compaction.replaces, ...(compaction.pinned ?? [])])
      if (!loaded.has(id) && !byId.has(id)) outside.add(id);
  }
  return { outside, byId, named };
}

/** `record` and every earlier record it replaces, directly or through others, each once. */
function chainOf(
  record: CompactionRecord,
  byId: ReadonlyMap<string, CompactionRecord>,
): readonly CompactionRecord[] {
  const chain: CompactionRecord[] = [];
  const seen = new Set<CompactionRecord>();
  const walk = (current: CompactionRecord): void => {
    if (seen.has(current)) return;
    seen.add(current);
    chain.push(current);
    for (const id of current.replaces) {
      const parent = byId.get(id);
      if (parent !== undefined) walk(parent);
    }
  };
  walk(record);
  return chain;
}

/** The raw ids `record` replaces, each earlier record it replaces expanded in place, in order. */
function flatten(record: CompactionRecord, byId: ReadonlyMap<string, CompactionRecord>): string[] {
  const out: string[] = [];
  const seen = new Set<CompactionRecord>();
  const walk = (current: CompactionRecord): void => {
    if (seen.has(current)) return;
    seen.add(current);
    for (const id of current.replaces) {
      const parent = byId.get(id);
      if (parent === undefined) out.push(id);
      else walk(parent);
    }
  };
  walk(record);
  return out;
}
