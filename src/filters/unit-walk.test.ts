import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { groupTransactions } from '../core/transactions.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { type UnitBounds, unitEndAfter, unitStartBefore } from './unit-walk.js';

const expected = (messages: readonly Message[]): readonly UnitBounds[] =>
  groupTransactions(messages).map((unit) => ({ start: unit.start, end: unit.start + unit.messages.length }));

describe('lazy unit walk', () => {
  test.prop([malformedConversationArbitrary({ maxUnits: 16 })], { numRuns: 100 })(
    'finds the same units as groupTransactions from both ends, on broken histories too',
    (messages) => {
      const forward: UnitBounds[] = [];
      for (let start = 0; start < messages.length; ) {
        const end = unitEndAfter(messages, { start, limit: messages.length });
        forward.push({ start, end });
        start = end;
      }
      const backward: UnitBounds[] = [];
      for (let end = messages.length; end > 0; ) {
        const start = unitStartBefore(messages, { end, floor: 0 });
        backward.unshift({ start, end });
        end = start;
      }
      expect(forward).toEqual(expected(messages));
      expect(backward).toEqual(expected(messages));
    },
  );

  test.prop([conversationArbitrary({ maxParallelCalls: 4 })], { numRuns: 100 })(
    'respects a floor: a transaction whose assistant lies below the floor is not claimed',
    (messages) => {
      const floor = Math.min(1, messages.length);
      const backward: UnitBounds[] = [];
      for (let end = messages.length; end > floor; ) {
        const start = unitStartBefore(messages, { end, floor });
        backward.unshift({ start, end });
        end = start;
      }
      const shifted = expected(messages.slice(floor)).map((unit) => ({
        start: unit.start + floor,
        end: unit.end + floor,
      }));
      expect(backward).toEqual(shifted);
    },
  );
});
