import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assistant, user } from '../core/factories.js';
import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import type { Message } from '../core/message.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { getHistory, replayStart } from './get-history.js';

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

describe('getHistory of the newest messages only', () => {
  const flagged = fc
    .tuple(conversationArbitrary({ maxUnits: 14 }), fc.array(fc.nat({ max: 60 }), { maxLength: 4 }))
    .map(([messages, marks]) =>
      messages.map((message, index) =>
        marks.includes(index)
          ? { ...message, metadata: { ...message.metadata, _channel_delivery: true } }
          : message,
      ),
    );
  test.prop([
    flagged,
    fc.nat({ max: 60 }),
    fc.nat({ max: 60 }),
    fc.nat({ max: 12 }),
    fc.boolean(),
    fc.oneof(fc.constant(0), fc.nat({ max: 300 })),
  ])(
    'replays what the whole session replays, or throws INVALID_INPUT when it must reach back further',
    (messages, last, from, cap, extendToUser, maxTokens) => {
      const firstIndex = Math.min(from, messages.length);
      // cap 0: no count cap (nanobot's); then a token cap that stops inside the held part is enough.
      const options = { maxMessages: cap, extendToUser, maxTokens, tokenCounter: counter };
      const whole = getHistory({ messages, lastConsolidated: last }, options);
      const session = { messages: messages.slice(firstIndex), lastConsolidated: last, firstIndex };
      let tail: readonly Message[] | undefined;
      try {
        tail = getHistory(session, options);
      } catch (error) {
        expect(error).toMatchObject({ code: 'INVALID_INPUT' });
        expect(firstIndex).toBeGreaterThan(0);
        // Nothing archived and no extension: it throws only when the replay starts before the part held.
        if (last === 0 && !extendToUser)
          expect(replayStart({ messages, lastConsolidated: 0 }, options)).toBeLessThan(firstIndex);
        return;
      }
      if (last === 0 && !extendToUser && maxTokens === 0)
        expect(replayStart({ messages, lastConsolidated: 0 }, options)).toBeGreaterThanOrEqual(firstIndex);
      expect(tail).toHaveLength(whole.length);
      for (const [index, message] of tail.entries()) expect(message).toBe(whole[index]);
    },
  );
});

describe('getHistory of the newest messages of an archived session', () => {
  // A fully archived session whose last user turn is older than its last 8 messages: the replay goes
  // back to that turn, which a record of the newest 9 messages does not hold.
  const messages = [
    user('run the checks', { id: 'u' }),
    ...Array.from({ length: 10 }, (_, index) => assistant(`step ${index}`, { id: `a${index}` })),
  ];
  it('throws INVALID_INPUT when the replay reaches back before the messages held', () => {
    const whole = getHistory({ messages, lastConsolidated: 11 });
    expect(whole.map((message) => message.id)[0]).toBe('u');
    expect(() => getHistory({ messages: messages.slice(2), lastConsolidated: 11, firstIndex: 2 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('loadReplayedSession'),
      }),
    );
  });
});
