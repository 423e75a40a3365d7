import { describe, expect, it } from 'vitest';
import { apportionTokens } from './apportion-tokens.js';

describe('apportionTokens', () => {
  it('gives the leftover tokens to the largest remainders, earlier piece first on ties', () => {
    expect(apportionTokens(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportionTokens(7, [10, 30, 60])).toEqual([1, 2, 4]);
  });

  it('gives everything to the first piece when no piece has weight', () => {
    expect(apportionTokens(9, [0, 0])).toEqual([9, 0]);
    expect(apportionTokens(9, [])).toEqual([]);
  });
});
