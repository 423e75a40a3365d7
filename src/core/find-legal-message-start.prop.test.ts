import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { assistant, user } from './factories.js';
import { findLegalMessageStart } from './find-legal-message-start.js';
import type { Message } from './message.js';

/** nanobot's scan as written there: one set of every declared id, reset at each illegal result. */
function reference(messages: readonly Message[]): number {
  let start = 0;
  let declared = new Set<string>();
  messages.forEach((message, index) => {
    for (const call of message.role === 'assistant' ? (message.toolCalls ?? []) : [])
      if (call.id !== '') declared.add(call.id);
    if (message.role === 'tool' && !declared.has(message.toolCallId ?? '')) {
      start = index + 1;
      declared = new Set();
    }
  });
  return start;
}

/** Ids from a small pool (so results answer earlier calls, later ones or none), the empty id included. */
const idArbitrary = fc.constantFrom('', 'a', 'b', 'c', 'd');

const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
  fc.constant(null).map(() => user('hi')),
  fc
    .array(idArbitrary, { maxLength: 3 })
    .map((ids) => assistant('', { toolCalls: ids.map((id) => ({ id, name: 'exec', arguments: '{}' })) })),
  // A relay may send a result with an empty id or none: built by hand (the factory refuses both).
  fc.tuple(fc.option(idArbitrary, { nil: undefined }), fc.nat()).map(
    ([toolCallId, n]): Message => ({
      id: `t${n}`,
      role: 'tool',
      content: 'out',
      ...(toolCallId === undefined ? {} : { toolCallId }),
    }),
  ),
);

describe('findLegalMessageStart', () => {
  test.prop([fc.array(messageArbitrary, { maxLength: 30 })], { numRuns: 1000 })(
    'finds the start nanobot finds, answering most results without a set of every id',
    (messages) => {
      expect(findLegalMessageStart(messages)).toBe(reference(messages));
      // From an index on, as the list from there: the index in the whole list.
      const from = Math.floor(messages.length / 3);
      expect(findLegalMessageStart(messages, from)).toBe(from + reference(messages.slice(from)));
    },
  );
});
