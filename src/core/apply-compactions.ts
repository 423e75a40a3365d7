import { COMPACTION_DEPTH_KEY, COMPACTION_ID_KEY, type CompactionRecord } from './compaction-record.js';
import type { LineageViolation } from './lineage-violation.js';
import type { Message } from './message.js';
import { groupTransactions } from './transactions.js';

/** What {@link applyCompactions} returns. */
export type AppliedCompactions = {
  /** What the model sees: raw messages, summaries (with `metadata.compactionId`) and pinned messages. */
  readonly view: readonly Message[];
  /** Every record that does not fit, with why; such a record is left out of the view. */
  readonly violations: readonly LineageViolation[];
  /** The ids of the records the view applies, in order. */
  readonly applied: readonly string[];
};

const summaries = new WeakMap<CompactionRecord, Message>();

/**
 * Replays compaction records over an append-only history, in the order they were made: each record's
 * run (its `replaces` and `pinned` ids, one contiguous stretch of the view so far) becomes its summary
 * followed by the pinned messages. A record that does not fit (see {@link LineageViolation}) is left
 * out and reported, and so is every later record that names it; so a rewind (a history cut back)
 * simply shows the messages that remain, raw where their record no longer fits. O(messages × records).
 * The messages are returned as the same array when there are no records. The list may itself be a
 * view (summaries carrying `metadata.compactionId` and their depth): more records then extend it, and
 * may replace those summaries by their record ids.
 */
export function applyCompactions(
  messages: readonly Message[],
  compactions: readonly CompactionRecord[],
): AppliedCompactions {
  if (compactions.length === 0) return { view: messages, violations: [], applied: [] };
  const replay = new Replay(messages);
  compactions.forEach((record, index) => {
    replay.apply(record, index);
  });
  return { view: replay.view, violations: replay.violations, applied: replay.applied };
}

class Replay {
  view: readonly Message[];
  readonly violations: LineageViolation[] = [];
  readonly applied: string[] = [];
  readonly #messageIds = new Set<string>();
  readonly #records = new Map<string, CompactionRecord>();
  readonly #replaced = new Set<string>();
  readonly #summaryIds = new Set<string>();
  /** Summaries already in the list given (a view extended by more records): their record ids and depths. */
  readonly #shown = new Map<string, number>();

  constructor(messages: readonly Message[]) {
    this.view = messages;
    for (const message of messages) {
      this.#messageIds.add(message.id);
      const record = message.metadata?.[COMPACTION_ID_KEY];
      if (typeof record !== 'string') continue;
      const depth = message.metadata?.[COMPACTION_DEPTH_KEY];
      this.#shown.set(record, typeof depth === 'number' ? depth : 1);
    }
  }

  apply(record: CompactionRecord, index: number): void {
    const found = this.#check(record);
    if (found !== undefined) {
      this.violations.push({ ...found, recordId: record.id, recordIndex: index });
      return;
    }
    const run = this.#run(record);
    if ('type' in run) {
      this.violations.push({ ...run, recordId: record.id, recordIndex: index });
      return;
    }
    const pinned = new Set(record.pinned ?? []);
    const kept = this.view.slice(run.start, run.end).filter((message) => pinned.has(viewId(message)));
    const summary = record.summary === undefined ? [] : [summaryMessage(record, record.summary)];
    this.view = [...this.view.slice(0, run.start), ...summary, ...kept, ...this.view.slice(run.end)];
    for (const id of record.replaces) this.#replaced.add(id);
    this.#records.set(record.id, record);
    if (record.summary !== undefined) this.#summaryIds.add(record.summary.id);
    this.applied.push(record.id);
  }

  #isKnown(id: string): boolean {
    return this.#messageIds.has(id) || this.#records.has(id) || this.#shown.has(id);
  }

  /** The depth of a record applied here or shown in the list given, `undefined` for a message. */
  #depthOf(id: string): number | undefined {
    return this.#records.get(id)?.depth ?? this.#shown.get(id);
  }

  /** The problems that can be seen without the view: ids, duplicates, lineage. */
  #check(record: CompactionRecord): Omit<LineageViolation, 'recordId' | 'recordIndex'> | undefined {
    const summaryId = record.summary?.id;
    const clash = [record.id, summaryId].filter(
      (id): id is string => id !== undefined && (this.#isKnown(id) || this.#summaryIds.has(id)),
    );
    if (clash.length > 0)
      return { type: 'duplicate-record-id', ids: clash, message: `id ${clash[0]} is already in use.` };
    if (record.replaces.length === 0)
      return { type: 'empty-run', ids: [], message: 'the record replaces nothing.' };
    const named = [...record.replaces, ...(record.pinned ?? [])];
    const unknown = named.filter((id) => !this.#isKnown(id));
    if (unknown.length > 0)
      return { type: 'unknown-id', ids: unknown, message: `unknown ids ${unknown.join(', ')}.` };
    const pinned = new Set(record.pinned ?? []);
    const both = record.replaces.filter((id) => pinned.has(id));
    if (both.length > 0)
      return {
        type: 'pinned-in-replaces',
        ids: both,
        message: `ids both pinned and replaced: ${both.join(', ')}.`,
      };
    const seen = new Set<string>();
    const twice = named.filter((id) => {
      const isAgain = this.#replaced.has(id) || seen.has(id);
      seen.add(id);
      return isAgain;
    });
    if (twice.length > 0)
      return { type: 'covered-twice', ids: twice, message: `ids already replaced: ${twice.join(', ')}.` };
    return this.#lineage(record);
  }

  #lineage(record: CompactionRecord): Omit<LineageViolation, 'recordId' | 'recordIndex'> | undefined {
    const parents = record.replaces.filter((id) => this.#depthOf(id) !== undefined);
    let depth = 1;
    for (const id of parents) depth = Math.max(depth, (this.#depthOf(id) ?? 0) + 1);
    const sameParents =
      parents.length === record.parents.length && parents.every((id) => record.parents.includes(id));
    if (sameParents && record.depth === depth) return undefined;
    return {
      type: 'bad-lineage',
      ids: parents,
      message: `parents should be [${parents.join(', ')}] at depth ${depth}; the record says [${record.parents.join(', ')}] at depth ${record.depth}.`,
    };
  }

  /** Where the run stands in the view, or why it is not one whole contiguous stretch. */
  #run(
    record: CompactionRecord,
  ): { readonly start: number; readonly end: number } | Omit<LineageViolation, 'recordId' | 'recordIndex'> {
    const replaces = new Set(record.replaces);
    const pinned = new Set(record.pinned ?? []);
    const inViewOrder: string[] = [];
    let start = -1;
    let last = -1;
    this.view.forEach((message, position) => {
      const id = viewId(message);
      const isReplaced = replaces.has(id);
      if (!isReplaced && !pinned.has(id)) return;
      if (start < 0) start = position;
      last = position;
      if (isReplaced) inViewOrder.push(id);
    });
    const end = last + 1;
    const isWhole =
      end - start === replaces.size + pinned.size &&
      inViewOrder.every((id, order) => record.replaces[order] === id);
    if (!isWhole)
      return {
        type: 'not-contiguous',
        ids: record.replaces,
        message: 'the run is not one contiguous, ordered stretch of the view.',
      };
    const split = splitUnit(this.view, { start, end, pinned });
    return split === undefined
      ? { start, end }
      : {
          type: 'split-transaction',
          ids: split,
          message: `the run splits the tool transaction of ${split[0]}.`,
        };
  }
}

/** The id a view item is named by in `replaces`: a summary by its record's id, a message by its own. */
export function viewId(message: Message): string {
  const record = message.metadata?.[COMPACTION_ID_KEY];
  return typeof record === 'string' ? record : message.id;
}

/** The ids of a tool transaction the run (or its pins) takes only part of, if any. */
function splitUnit(
  view: readonly Message[],
  run: { readonly start: number; readonly end: number; readonly pinned: ReadonlySet<string> },
): readonly string[] | undefined {
  for (const unit of groupTransactions(view)) {
    if (unit.kind !== 'transaction') continue;
    const last = unit.start + unit.messages.length;
    if (last <= run.start || unit.start >= run.end) continue;
    const inside = unit.start >= run.start && last <= run.end;
    const pins = unit.messages.filter((message) => run.pinned.has(viewId(message))).length;
    if (!inside || (pins !== 0 && pins !== unit.messages.length))
      return unit.messages.map((message) => message.id);
  }
  return undefined;
}

function summaryMessage(record: CompactionRecord, summary: Message): Message {
  const known = summaries.get(record);
  if (known !== undefined) return known;
  const message =
    summary.metadata?.[COMPACTION_ID_KEY] === record.id
      ? summary
      : { ...summary, metadata: { ...summary.metadata, [COMPACTION_ID_KEY]: record.id } };
  summaries.set(record, message);
  return message;
}
