/** What {@link visitListDelta} reports. */
export type ListDeltaVisitor<TItem> = {
  /** An item of `before` that `after` does not keep; `at` is where it was, as a position in `after`. */
  readonly removed?: (item: TItem, at: number) => void;
  /** An item of `after` (at position `at`) not kept from `before`. */
  readonly added?: (item: TItem, at: number) => void;
  /**
   * A run of items kept: `before[from + i]` is `after[to + i]` for each `i` below `length`. Told once
   * per run, so a caller copies what it knows about a run in one loop. @default not told
   */
  readonly kept?: (run: KeptRun) => void;
};

/** A run of items kept from `before` (from `from` on) to `after` (from `to` on), `length` long. */
export type KeptRun = { readonly from: number; readonly to: number; readonly length: number };

/**
 * Visits what changed from `before` to `after`, items compared by identity: each item of `before`
 * that `after` does not keep is `removed`, each item of `after` not kept from `before` is `added`,
 * and the kept ones (the same objects, in the same order) are only told to `kept`, when given, by
 * position, one run at a time. Made for a list derived
 * from another (a few items dropped, replaced or inserted, a block cut from the front), so a sum over
 * `after` is the sum over `before` minus the removed plus the added, without visiting what was kept.
 *
 * Every pair it keeps is one object, so that sum is exact whatever the two lists are; an unrelated
 * list only costs more (each item of both visited). A dropped block is found by looking ahead in
 * `before`, within O(before + after) compares in all, so the walk is linear. @internal
 */
export function visitListDelta<TItem>(
  lists: { readonly before: readonly TItem[]; readonly after: readonly TItem[] },
  visit: ListDeltaVisitor<TItem>,
): void {
  const { before, after } = lists;
  const ahead = { budget: 2 * (before.length + after.length) };
  let from = 0;
  let to = 0;
  while (from < before.length && to < after.length) {
    const item = after[to] as TItem; // to < after.length
    if (before[from] === item) {
      const length = keptLength(lists, { from, to });
      visit.kept?.({ from, to, length });
      from += length;
      to += length;
    } else if (before[from + 1] === after[to + 1]) {
      // One item replaced (or the last of both: each is reported either way).
      visit.removed?.(before[from] as TItem, to);
      visit.added?.(item, to);
      from += 1;
      to += 1;
    } else {
      const found = findAhead(before, { item, from: from + 1, ahead });
      if (found === -1) {
        visit.added?.(item, to);
        to += 1;
      }
      // A block of `before` dropped; `item` is kept (the next round pairs it).
      for (; from < found; from += 1) visit.removed?.(before[from] as TItem, to);
    }
  }
  for (; from < before.length; from += 1) visit.removed?.(before[from] as TItem, to);
  for (; to < after.length; to += 1) visit.added?.(after[to] as TItem, to);
}

/** How many items from `at` on are the same in both lists (at least the one at `at`). */
function keptLength<TItem>(
  lists: { readonly before: readonly TItem[]; readonly after: readonly TItem[] },
  at: { readonly from: number; readonly to: number },
): number {
  const { before, after } = lists;
  const most = Math.min(before.length - at.from, after.length - at.to);
  let length = 1;
  while (length < most && before[at.from + length] === after[at.to + length]) length += 1;
  return length;
}

/** The index of `item` in `before` from `from` on, or -1; looks at most `ahead.budget` items (and spends them). */
function findAhead<TItem>(
  before: readonly TItem[],
  at: { readonly item: TItem; readonly from: number; readonly ahead: { budget: number } },
): number {
  const { item, ahead } = at;
  for (let index = at.from; index < before.length && ahead.budget > 0; index += 1, ahead.budget -= 1) {
    if (before[index] === item) return index;
  }
  return -1;
}
