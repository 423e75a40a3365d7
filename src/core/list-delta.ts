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
 * list only costs more (each item of both visited). A block dropped from `before` or inserted in
 * `after` is found by looking ahead in both at once, within O(before + after) compares in all, so the
 * walk is linear. @internal
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
    if (before[from] === after[to]) {
      const length = keptLength(lists, { from, to });
      visit.kept?.({ from, to, length });
      from += length;
      to += length;
      continue;
    }
    // One item replaced when the next ones pair up (or the last of both); else the nearer of a block
    // of `before` dropped and a block of `after` inserted, looked for on both sides at once, so
    // finding a block costs about twice its length; neither found (or out of budget): one replaced.
    const gap =
      before[from + 1] === after[to + 1] ? REPLACED : (findGap(lists, { from, to, ahead }) ?? REPLACED);
    tellRemoved(visit, { items: before, from, end: from + gap.dropped, at: to });
    tellAdded(visit, { items: after, from: to, end: to + gap.inserted });
    from += gap.dropped;
    to += gap.inserted;
  }
  tellRemoved(visit, { items: before, from, end: before.length, at: to });
  tellAdded(visit, { items: after, from: to, end: after.length });
}

/** A gap of one item replaced by another. */
const REPLACED = { dropped: 1, inserted: 1 } as const;

/** Tells `removed` the items of `before` from `from` to before `end`, at position `at` of `after`. */
function tellRemoved<TItem>(
  visit: ListDeltaVisitor<TItem>,
  range: {
    readonly items: readonly TItem[];
    readonly from: number;
    readonly end: number;
    readonly at: number;
  },
): void {
  for (let index = range.from; index < range.end; index += 1)
    visit.removed?.(range.items[index] as TItem, range.at);
}

/** Tells `added` the items of `after` from `from` to before `end`, each at its position. */
function tellAdded<TItem>(
  visit: ListDeltaVisitor<TItem>,
  range: { readonly items: readonly TItem[]; readonly from: number; readonly end: number },
): void {
  for (let index = range.from; index < range.end; index += 1)
    visit.added?.(range.items[index] as TItem, index);
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

/**
 * How far on `after[at.to]` is in `before` (a block of `before` dropped) or `before[at.from]` is in
 * `after` (a block inserted), whichever is nearer; `undefined` when neither is within the lists or
 * within `ahead.budget` compares (which it spends).
 */
function findGap<TItem>(
  lists: { readonly before: readonly TItem[]; readonly after: readonly TItem[] },
  at: { readonly from: number; readonly to: number; readonly ahead: { budget: number } },
): { readonly dropped: number; readonly inserted: number } | undefined {
  const { before, after } = lists;
  const { from, to, ahead } = at;
  const wanted = after[to];
  const kept = before[from];
  const most = Math.max(before.length - from, after.length - to);
  for (let distance = 1; distance < most && ahead.budget > 0; distance += 1, ahead.budget -= 2) {
    if (from + distance < before.length && before[from + distance] === wanted)
      return { dropped: distance, inserted: 0 };
    if (to + distance < after.length && after[to + distance] === kept)
      return { dropped: 0, inserted: distance };
  }
  return undefined;
}
