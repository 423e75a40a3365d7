/**
 * A list as it was when remembered: the array, its length then, and its first and last items. Code
 * that keeps state about a list a caller may own and change (a history array pushed to every turn)
 * keeps a mark instead of the bare array, because the array itself may have changed since. @internal
 */
export type ListMark<TItem> = {
  readonly list: readonly TItem[];
  readonly length: number;
  readonly first: TItem | undefined;
  readonly last: TItem | undefined;
};

/** Marks `list` as it is now. */
export function markList<TItem>(list: readonly TItem[]): ListMark<TItem> {
  return { list, length: list.length, first: list[0], last: list[list.length - 1] };
}

/**
 * True when the marked array still holds what it held when marked, followed by anything appended
 * since, as far as an O(1) look tells: it is no shorter and its first and last marked items are the
 * same objects. A splice, shift or truncation changes one of them; an item replaced in place in the
 * middle is not seen, so lists handed to ctxloom are only appended to (pass a new array to change an
 * old item).
 */
export function keepsMarkedItems<TItem>(mark: ListMark<TItem>): boolean {
  const { list, length } = mark;
  return length === 0 || (list.length >= length && list[0] === mark.first && list[length - 1] === mark.last);
}

/**
 * True when `next` starts with the marked items, compared by identity: the marked array itself when
 * it was only appended to (told in O(1), see {@link keepsMarkedItems}), or another array holding the
 * same items first. A marked array changed since is never compared: it no longer holds them.
 */
export function extendsMarkedList<TItem>(mark: ListMark<TItem>, next: readonly TItem[]): boolean {
  if (next.length < mark.length || !keepsMarkedItems(mark)) return false;
  if (next === mark.list) return true;
  for (let index = 0; index < mark.length; index += 1) if (mark.list[index] !== next[index]) return false;
  return true;
}
