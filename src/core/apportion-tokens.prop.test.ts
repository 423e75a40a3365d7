import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { apportionTokens } from './apportion-tokens.js';

describe('apportionTokens', () => {
  test.prop([fc.nat(1_000_000), fc.array(fc.nat(100_000), { minLength: 1, maxLength: 30 })])(
    'returns non-negative whole shares that add up to the total exactly',
    (total, weights) => {
      const shares = apportionTokens(total, weights);
      expect(shares).toHaveLength(weights.length);
      expect(shares.reduce((sum, share) => sum + share, 0)).toBe(total);
      for (const share of shares) expect(Number.isInteger(share) && share >= 0).toBe(true);
    },
  );

  test.prop([
    fc.nat(1_000_000),
    fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 30 }),
  ])('gives each piece its proportional share within one token', (total, weights) => {
    const sum = weights.reduce((a, b) => a + b, 0);
    apportionTokens(total, weights).forEach((share, index) => {
      expect(Math.abs(share - (total * (weights[index] ?? 0)) / sum)).toBeLessThan(1);
    });
  });
});
