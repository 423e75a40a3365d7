import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ContextError } from '../core/errors.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { sanitizeToolCallHistory } from './sanitize-tool-call-history.js';

const ids = (messages: readonly Message[]): readonly string[] => messages.map((message) => message.id);

describe('sanitizeToolCallHistory properties', () => {
  test.prop([malformedConversationArbitrary()], { numRuns: 100 })(
    'returns a legal list, or throws TOOL_CALL_INTEGRITY for a broken tail; never mutates; explains every drop',
    (messages) => {
      const before = structuredClone(messages);
      const generateId = createSequentialIdGenerator('gen');
      let result: ReturnType<typeof sanitizeToolCallHistory>;
      try {
        result = sanitizeToolCallHistory(messages, { generateId });
      } catch (error) {
        expect(ContextError.isInstance(error) && error.code).toBe('TOOL_CALL_INTEGRITY');
        expect(messages.at(-1)?.role === 'tool' || (messages.at(-1)?.toolCalls?.length ?? 0) > 0).toBe(true);
        expect(messages).toEqual(before);
        return;
      }
      expect(messages).toEqual(before);
      expect(validateToolCallIntegrity(result.messages)).toEqual([]);
      const inputIds = ids(messages);
      const outputIds = ids(result.messages);
      let cursor = 0;
      for (const id of inputIds) if (outputIds[cursor] === id) cursor += 1;
      expect(cursor).toBe(outputIds.length);
      const kept = new Set(outputIds);
      const explained = new Set(result.decisions.flatMap((item) => item.messageIds));
      expect(inputIds.filter((id) => !kept.has(id) && !explained.has(id))).toEqual([]);
      expect(sanitizeToolCallHistory(result.messages).messages).toBe(result.messages);
    },
  );

  test.prop([conversationArbitrary()], { numRuns: 100 })(
    'returns a legal list unchanged (same array)',
    (messages) => {
      const result = sanitizeToolCallHistory(messages);
      expect(result.messages).toBe(messages);
      expect(result.decisions).toEqual([]);
    },
  );
});
