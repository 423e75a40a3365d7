import { visitListDelta } from '../core/list-delta.js';
import { keepsMarkedItems, type ListMark, markList } from '../core/list-mark.js';
import type { Message } from '../core/message.js';
import { sharedCopy } from '../core/shared-copy.js';

/** What changed in a list since the one a filter last returned unchanged (see {@link UnchangedListMemo}). */
export type ListChanges = {
  /** Messages of the new list not kept from the old one, in order. */
  readonly added: readonly Message[];
  /** Messages of the old list the new one does not keep. */
  readonly removed: readonly Message[];
  /**
   * Positions in the new list whose run (see {@link runsAround}) may differ from the old list's:
   * each added message's and the one before it, and the two on either side of each removal.
   * Ascending, no repeats.
   */
  readonly touched: readonly number[];
};

/**
 * The last list a filter returned unchanged, so that its next call, on a list derived from that
 * one (the history window moved: old messages cut from the front, new ones appended, a few
 * replaced), looks only at what changed. Comparing the two lists costs an identity comparison per
 * message; nothing else of a kept message is read. A filter may use it when whether it changes
 * anything is decided message by message (or run by run: a message and the tool results that
 * follow it) from the messages alone, so a list whose changed parts all pass is unchanged too.
 * It is a hint: any list gives a correct answer (an unrelated one costs a look at every message).
 *
 * Filters next to each other in a chain are often given the same list (the one before left it
 * unchanged): their memos share one copy of it, and the changes from that copy to the next list are
 * found once for all of them.
 * @internal
 */
export class UnchangedListMemo {
  /** A copy of the last list returned unchanged (a caller may change its own array later). */
  #last: readonly Message[] | undefined;

  /** What changed since the last list returned unchanged; `undefined` when there is none to compare with. */
  changesSince(messages: readonly Message[]): ListChanges | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    const known = foundChanges.get(last);
    if (known !== undefined && stillMarks(known.list, messages)) return known.changes;
    const changes = changesBetween(last, messages);
    foundChanges.set(last, { list: markList(messages), changes });
    return changes;
  }

  /**
   * Whether `messages`, derived from the last list returned unchanged, is unchanged too for a filter
   * that decides each run on its own: every run around a change passes `passes`. False when there is
   * no last list to compare with.
   */
  runsStillPass(messages: readonly Message[], passes: (run: readonly Message[]) => boolean): boolean {
    const changes = this.changesSince(messages);
    return changes !== undefined && runsAround(messages, changes.touched).every(passes);
  }

  /** Records the outcome of a call on `messages`: returned unchanged, or not (then nothing is kept). */
  remember(messages: readonly Message[], unchanged: boolean): void {
    this.#last = unchanged ? sharedCopy(messages) : undefined;
  }
}

/**
 * For a memo's copy, the changes last found from it, with the list they lead to as it was then: the
 * memos of one chain ask for the same changes one after another, while that list holds what it held.
 */
const foundChanges = new WeakMap<
  readonly Message[],
  { readonly list: ListMark<Message>; readonly changes: ListChanges }
>();

/**
 * True when `mark` marks `messages` as it still is, as far as a list handed to ctxloom tells it (only
 * appended to; see `keepsMarkedItems`): the same array, as long, with the same ends.
 */
function stillMarks(mark: ListMark<Message>, messages: readonly Message[]): boolean {
  return mark.list === messages && mark.length === messages.length && keepsMarkedItems(mark);
}

/** What changed from `last` (a memo's copy) to `messages`. */
function changesBetween(last: readonly Message[], messages: readonly Message[]): ListChanges {
  const added: Message[] = [];
  const removed: Message[] = [];
  const touched: number[] = [];
  const touch = (at: number): void => {
    if (at >= 0 && at < messages.length && at > (touched.at(-1) ?? -1)) touched.push(at);
  };
  visitListDelta(
    { before: last, after: messages },
    {
      removed: (message, at) => {
        removed.push(message);
        touch(at - 1);
        touch(at);
      },
      added: (message, at) => {
        added.push(message);
        // A message added after a run ends it early (or, a tool result, extends it): that run changed too.
        touch(at - 1);
        touch(at);
      },
    },
  );
  return { added, removed, touched };
}

/**
 * The runs of `messages` that hold one of `positions` (ascending): a run is a message that is not a
 * tool result with the tool results right after it, or the tool results a list starts with. Filters
 * that pair results with the assistant before them decide each run on its own.
 */
function runsAround(
  messages: readonly Message[],
  positions: readonly number[],
): readonly (readonly Message[])[] {
  const runs: (readonly Message[])[] = [];
  let covered = -1;
  for (const position of positions) {
    if (position < covered) continue;
    let start = position;
    while (start > 0 && messages[start]?.role === 'tool') start -= 1;
    let end = start + 1;
    while (end < messages.length && messages[end]?.role === 'tool') end += 1;
    runs.push(messages.slice(start, end));
    covered = end;
  }
  return runs;
}
