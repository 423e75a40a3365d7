import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { getHistory } from './get-history.js';

const counter = new SimpleTokenCounter();

describe('getHistory properties', () => {
  test.prop([
    fc.oneof(conversationArbitrary({ maxUnits: 20 }), malformedConversationArbitrary({ maxUnits: 20 })),
    fc.nat({ max: 40 }),
    fc.nat({ max: 12 }),
    fc.nat({ max: 400 }),
  ])(
    'replays an ordered, legal subsequence and never mutates the session',
    (messages, last, cap, maxTokens) => {
      const snapshot = JSON.stringify(messages);
      const out = getHistory(
        { messages, lastConsolidated: last },
        { maxMessages: cap, maxTokens, tokenCounter: counter },
      );
      expect(JSON.stringify(messages)).toBe(snapshot);
      const positions = out.map((message) => messages.findIndex((candidate) => candidate.id === message.id));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(findLegalMessageStart(out)).toBe(0);
    },
  );
});
