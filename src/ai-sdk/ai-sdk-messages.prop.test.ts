import { fc, test } from '@fast-check/vitest';
import { type ModelMessage, modelMessageSchema } from 'ai';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

type Json = Record<string, unknown>;

const governor = new ContextGovernor({ contextWindowTokens: 10_000_000, maxToolResultChars: 1_000_000 });
const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };

function coins(pool: readonly number[]): () => boolean {
  let next = 0;
  return () => {
    next += 1;
    return (pool[next % pool.length] ?? 0) % 3 === 0;
  };
}

function decoratePart(part: Json, coin: () => boolean): Json {
  if (part['type'] === 'text' && coin()) return { ...part, providerOptions: cache };
  const output = part['output'] as Json | undefined;
  if (part['type'] !== 'tool-result' || output?.['type'] !== 'text' || !coin()) return part;
  const value = output['value'];
  return {
    ...part,
    output: coin() ? { type: 'error-text', value } : { type: 'json', value: { text: value } },
  };
}

/** Adds what a real AI SDK history carries: provider options, signed reasoning, JSON and error outputs. */
function decorate(messages: readonly ModelMessage[], coin: () => boolean): ModelMessage[] {
  return messages.map((message) => {
    const base: Json = { ...message, ...(coin() ? { providerOptions: cache } : {}) };
    if (typeof message.content === 'string') return base as ModelMessage;
    const content = (message.content as Json[]).map((part) => decoratePart(part, coin));
    const reasoning =
      message.role === 'assistant' && coin()
        ? [{ type: 'reasoning', text: 'hm', providerOptions: { anthropic: { signature: 'sig' } } }]
        : [];
    // Still a ModelMessage: parts of the same kinds, with optional fields added.
    return { ...base, content: [...reasoning, ...content] } as ModelMessage;
  });
}

describe('AI SDK messages come back unchanged, object for object', () => {
  test.prop([
    conversationArbitrary({ minUnits: 1, maxUnits: 10 }),
    fc.array(fc.nat(), { minLength: 32, maxLength: 32 }),
    fc.nat(),
  ])(
    'through the governor, and one change leaves every other message identical',
    async (conversation, pool, pick) => {
      const input = decorate(toAiSdkMessages(conversation, { carryMetadata: false }).messages, coins(pool));
      const read = fromAiSdkMessages(input);
      const result = (await governor.prepareForModel(read.messages)).messages;
      const back = toAiSdkMessages(result, { origins: read.origins }).messages;
      if (result === read.messages) {
        expect(back).toEqual(input);
        back.forEach((message, index) => {
          expect(message).toBe(input[index]);
        });
      } else {
        const kept = new Set(result);
        const touched = new Set<unknown>(
          read.messages
            .filter((message) => !kept.has(message))
            .map((message) => read.origins.messages.get(message.id)?.source),
        );
        for (const message of input) if (!touched.has(message)) expect(back).toContain(message);
      }
      for (const message of back) expect(modelMessageSchema.safeParse(message).success).toBe(true);

      const candidates = read.messages.filter(
        (message) => message.role === 'user' || message.role === 'tool',
      );
      const target = candidates[pick % Math.max(1, candidates.length)];
      if (target === undefined) return;
      const changed = toAiSdkMessages(
        read.messages.map(
          (message): Message => (message === target ? { ...message, content: 'changed' } : message),
        ),
        { origins: read.origins },
      ).messages;
      const source = read.origins.messages.get(target.id)?.source;
      expect(changed).toHaveLength(input.length);
      changed.forEach((message, index) => {
        if (input[index] === source) expect(message).not.toBe(source);
        else expect(message).toBe(input[index]);
      });
    },
  );

  test.prop([fc.oneof(malformedConversationArbitrary(), conversationArbitrary())], { numRuns: 150 })(
    'new messages are valid ModelMessages and round-trip through fromAiSdkMessages',
    async (messages) => {
      const governed = (await governor.prepareForModel(messages)).messages;
      const aiSdk = toAiSdkMessages(governed);
      for (const message of aiSdk.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
      if (aiSdk.warnings.length === 0) expect(fromAiSdkMessages(aiSdk.messages).messages).toEqual(governed);
    },
  );
});
