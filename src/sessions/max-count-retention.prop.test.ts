import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { groupTransactions } from '../core/transactions.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { MaxCountRetention } from './max-count-retention.js';

describe('MaxCountRetention properties', () => {
  test.prop([conversationArbitrary({ maxUnits: 25 }), fc.integer({ min: 1, max: 30 })])(
    'keeps a suffix of whole units, at most n messages unless the newest unit alone is longer',
    (messages, limit) => {
      const kept = new MaxCountRetention(limit).apply(messages);
      expect(kept).toEqual(messages.slice(messages.length - kept.length));
      const starts = new Set(groupTransactions(messages).map((unit) => unit.start));
      if (kept.length > 0) expect(starts.has(messages.length - kept.length)).toBe(true);
      const newest = groupTransactions(messages).at(-1);
      const floor = newest === undefined ? 0 : newest.messages.length;
      expect(kept.length).toBeLessThanOrEqual(Math.max(limit, floor));
      if (messages.length <= limit) expect(kept).toBe(messages);
      expect(new MaxCountRetention(limit).apply(kept)).toBe(kept);
    },
  );
});
