import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { OPENAI_NAME_PATTERN } from '../adapters/legal-openai-name.js';
import { toOpenAIChatMessages } from '../adapters/to-openai-chat-messages.js';
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

  test.prop([conversationArbitrary(), fc.nat(), fc.boolean()], { numRuns: 150 })(
    'a transaction that reuses an earlier call id is renamed with its results, never refused, even at the end',
    (messages, pick, reuseInLast) => {
      const callIds = messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id));
      const blocks = messages.flatMap((message, index) =>
        (message.toolCalls?.length ?? 0) > 0 ? [index] : [],
      );
      fc.pre(blocks.length >= 2);
      const source = callIds[pick % callIds.length] as string;
      const target = reuseInLast ? (blocks.at(-1) as number) : (blocks[1] as number);
      const victim = (messages[target] as Message).toolCalls?.[0]?.id as string;
      fc.pre(
        victim !== source &&
          !(messages[blocks[0] as number] as Message).toolCalls?.some((call) => call.id === victim),
      );
      fc.pre(
        (messages[blocks[0] as number] as Message).toolCalls?.some((call) => call.id === source) === true,
      );
      // The provider numbered the calls of the later turn again from the start.
      const reused = messages.map((message, index) => {
        if (index === target) {
          return {
            ...message,
            toolCalls: (message.toolCalls ?? []).map((call) =>
              call.id === victim ? { ...call, id: source } : call,
            ),
          };
        }
        if (index > target && message.role === 'tool' && message.toolCallId === victim) {
          return { ...message, toolCallId: source };
        }
        return message;
      });
      const result = sanitizeToolCallHistory(reused);
      expect(validateToolCallIntegrity(result.messages)).toEqual([]);
      expect(ids(result.messages)).toEqual(ids(reused));
      const renamedCall = result.messages[target]?.toolCalls?.find((call) =>
        call.id.startsWith(`${source}_`),
      );
      expect(renamedCall).toBeDefined();
      expect(result.decisions.some((entry) => entry.details?.['newToolCallId'] === renamedCall?.id)).toBe(
        true,
      );
    },
  );

  test.prop([conversationArbitrary(), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), fc.string()], {
    numRuns: 150,
  })(
    'calls with an empty tool name are removed with their results; illegal participant names never reach OpenAI',
    (messages, picks, participant) => {
      const callIds = messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id));
      fc.pre(callIds.length > 0);
      const unnamed = new Set(picks.map((pick) => callIds[pick % callIds.length] as string));
      const damaged = messages.map((message) => ({
        ...message,
        ...(message.role === 'user' ? { name: participant } : {}),
        ...(message.toolCalls === undefined
          ? {}
          : {
              toolCalls: message.toolCalls.map((call) =>
                unnamed.has(call.id) ? { ...call, name: '' } : call,
              ),
            }),
      }));
      const result = sanitizeToolCallHistory(damaged);
      expect(validateToolCallIntegrity(result.messages)).toEqual([]);
      const names = result.messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.name));
      expect(names.filter((name) => name.trim() === '')).toEqual([]);
      const sentIds = new Set(
        result.messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id)),
      );
      for (const id of unnamed) expect(sentIds.has(id)).toBe(false);
      expect(result.decisions.some((entry) => entry.type === 'tool-call-repair')).toBe(true);
      const request = toOpenAIChatMessages(result.messages).messages as readonly Record<string, unknown>[];
      for (const message of request) {
        if (typeof message['name'] === 'string') expect(message['name']).toMatch(OPENAI_NAME_PATTERN);
        const calls = (message['tool_calls'] ?? []) as readonly { function: { name: string } }[];
        for (const call of calls) expect(call.function.name).not.toBe('');
      }
    },
  );
});
