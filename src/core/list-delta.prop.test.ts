import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { visitListDelta } from './list-delta.js';

type Item = { readonly value: number };

/** Runs the walk: what it removed and added, and a sum over `after` derived from one over `before`. */
function delta(before: readonly Item[], after: readonly Item[]) {
  const removed: Item[] = [];
  const added: Item[] = [];
  const told = new Array<number>(after.length).fill(0);
  let keptCount = 0;
  visitListDelta(
    { before: before, after: after },
    {
      removed: (item, at) => {
        removed.push(item);
        expect(at >= 0 && at <= after.length).toBe(true);
      },
      added: (item, at) => {
        added.push(item);
        expect(after[at]).toBe(item);
        told[at] = (told[at] ?? 0) + 1;
      },
      kept: ({ from, to, length }) => {
        expect(length).toBeGreaterThan(0);
        for (let offset = 0; offset < length; offset += 1) {
          expect(after[to + offset]).toBe(before[from + offset]);
          told[to + offset] = (told[to + offset] ?? 0) + 1;
        }
        keptCount += length;
      },
    },
  );
  // Every item of `after` is either added or kept, once; every item of `before` removed or kept, once.
  expect(told.every((count) => count === 1)).toBe(true);
  expect(keptCount + removed.length).toBe(before.length);
  const sum = (items: readonly Item[]) => items.reduce((total, item) => total + item.value, 0);
  return { removed, added, derivedSum: sum(before) - sum(removed) + sum(added), directSum: sum(after) };
}

/** How many times each object occurs. */
function counts(items: readonly Item[]): Map<Item, number> {
  const out = new Map<Item, number>();
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1);
  return out;
}

type Edit =
  | { readonly kind: 'drop'; readonly at: number; readonly length: number }
  | { readonly kind: 'replace' | 'insert'; readonly at: number; readonly value: number }
  | { readonly kind: 'move'; readonly from: number; readonly to: number };

/** A pool of objects, a list drawn from it (repeats allowed) and edits that derive a second list. */
const edits = fc.array<Edit>(
  fc.oneof(
    fc.record({ kind: fc.constant('drop' as const), at: fc.nat(), length: fc.nat(8) }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: fc.nat(50) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), value: fc.nat(50) }),
    fc.record({ kind: fc.constant('move' as const), from: fc.nat(), to: fc.nat() }),
  ),
  { maxLength: 8 },
);

const lists = fc
  .tuple(fc.array(fc.nat(50), { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 60 }), edits)
  .map(([values, picks, changes]) => {
    const pool = values.map((value) => ({ value }));
    const before = picks.map((pick) => pool[pick % pool.length] as Item);
    const after = [...before];
    for (const change of changes) edit(after, change);
    return { before, after };
  });

/** Applies one edit to `list` in place. */
function edit(list: Item[], change: Edit): void {
  const at = list.length === 0 ? 0 : ('at' in change ? change.at : change.from) % (list.length + 1);
  const inRange = at < list.length;
  if (change.kind === 'drop') list.splice(at, change.length);
  else if (change.kind === 'insert') list.splice(at, 0, { value: change.value });
  else if (change.kind === 'replace' && inRange) list[at] = { value: change.value };
  else if (change.kind === 'move' && inRange) list.splice(change.to % list.length, 0, ...list.splice(at, 1));
}

describe('visitListDelta', () => {
  test.prop([lists])(
    'removes only items of before, and before minus removed plus added is after (as multisets)',
    ({ before, after }) => {
      const { removed, added, derivedSum, directSum } = delta(before, after);
      const left = counts(before);
      for (const item of removed) left.set(item, (left.get(item) ?? 0) - 1);
      for (const count of left.values()) expect(count).toBeGreaterThanOrEqual(0);
      for (const item of added) left.set(item, (left.get(item) ?? 0) + 1);
      const wanted = counts(after);
      for (const [item, count] of left) expect(count).toBe(wanted.get(item) ?? 0);
      for (const [item, count] of wanted) expect(left.get(item)).toBe(count);
      expect(derivedSum).toBe(directSum);
      // Linear: no item is visited twice.
      expect(removed.length).toBeLessThanOrEqual(before.length);
      expect(added.length).toBeLessThanOrEqual(after.length);
    },
  );

  test.prop([lists])('an unchanged list (another array, same items) visits nothing', ({ before }) => {
    const { removed, added } = delta(before, [...before]);
    expect(removed).toEqual([]);
    expect(added).toEqual([]);
  });

  it('visits only what a filter changed: a block cut from the front, an item replaced, one appended', () => {
    const before = Array.from({ length: 400 }, (_, value) => ({ value }));
    const replacement = { value: -1 };
    const appended = { value: -2 };
    const after = [before[0] as Item, ...before.slice(101, 200), replacement, ...before.slice(201), appended];
    const { removed, added, derivedSum, directSum } = delta(before, after);
    expect(removed).toEqual([...before.slice(1, 101), before[200]]);
    expect(added).toEqual([replacement, appended]);
    expect(derivedSum).toBe(directSum);
  });

  it('finds a block inserted in after: a history block against the list sent (system first, then a tail of it)', () => {
    const window = Array.from({ length: 400 }, (_, value) => ({ value }));
    const system = { value: -1 };
    const current = { value: -2 };
    const sent = [system, ...window.slice(60), current];
    const runs: { from: number; to: number; length: number }[] = [];
    const added: Item[] = [];
    const removed: Item[] = [];
    let reads = 0;
    const counted = (list: readonly Item[]) =>
      new Proxy(list, {
        get: (target, key, receiver) => {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
          return Reflect.get(target, key, receiver);
        },
      });
    visitListDelta(
      { before: counted(sent), after: counted(window) },
      {
        added: (item) => added.push(item),
        removed: (item) => removed.push(item),
        kept: (run) => runs.push(run),
      },
    );
    expect(runs).toEqual([{ from: 1, to: 60, length: 340 }]);
    expect(added).toEqual(window.slice(0, 60));
    expect(removed).toEqual([system, current]);
    // Looking ahead in `before` only, the walk read 2,406 items here (each inserted item was looked
    // for in the whole of `before`); looking in both, 1,612.
    expect(reads).toBeLessThan(5 * window.length);
  });
});
