/** The last copy made of each list. */
const copies = new WeakMap<readonly unknown[], readonly unknown[]>();

/**
 * A copy of `list` to keep across calls (the caller's array may change later), shared by everyone who
 * asks for a copy of the same array while it holds the same items: filters next to each other in a
 * chain are given the same list, and each keeps the last one it saw. Telling that a copy still holds
 * the array's items compares pointers only, far cheaper than a new copy and the garbage it makes.
 * @internal
 */
export function sharedCopy<TItem>(list: readonly TItem[]): readonly TItem[] {
  const known = copies.get(list) as readonly TItem[] | undefined;
  if (known !== undefined && sameItems(known, list)) return known;
  const copy = [...list];
  copies.set(list, copy);
  return copy;
}

function sameItems<TItem>(left: readonly TItem[], right: readonly TItem[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}
