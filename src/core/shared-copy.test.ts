import { describe, expect, it } from 'vitest';
import { sharedCopy } from './shared-copy.js';

describe('sharedCopy', () => {
  it('gives the same copy while the array holds the same items, a new one once it changed', () => {
    const items = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const list = [...items];
    const copy = sharedCopy(list);
    expect(copy).toEqual(list);
    expect(copy).not.toBe(list);
    expect(sharedCopy(list)).toBe(copy);
    // Changed in the middle, same length and ends: the old copy no longer holds its items.
    list[1] = { n: 4 };
    const again = sharedCopy(list);
    expect(again).not.toBe(copy);
    expect(again).toEqual(list);
    expect(copy).toEqual(items);
    list.push({ n: 5 });
    expect(sharedCopy(list)).toHaveLength(4);
  });
});
