import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { fromAnthropicMessages } from './from-anthropic-messages.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { fromOpenAIResponsesInput } from './from-openai-responses-input.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';
import { toOpenAIResponsesInput } from './to-openai-responses-input.js';

type Json = Record<string, unknown>;

/** A coin from a fixed pool of random numbers, so decorations are part of the generated case. */
function coins(pool: readonly number[]): () => boolean {
  let next = 0;
  return () => {
    next += 1;
    return (pool[next % pool.length] ?? 0) % 3 === 0;
  };
}

const governor = new ContextGovernor({ contextWindowTokens: 10_000_000, maxToolResultChars: 1_000_000 });
const history: [fc.Arbitrary<readonly Message[]>, fc.Arbitrary<number[]>, fc.Arbitrary<number>] = [
  conversationArbitrary({ minUnits: 1, maxUnits: 10 }),
  fc.array(fc.nat(), { minLength: 32, maxLength: 32 }),
  fc.nat(),
];

/** Replaces the content of the `pick`-th user or tool message; `undefined` when there is none. */
function changeOne(
  messages: readonly Message[],
  pick: number,
): { messages: Message[]; id: string } | undefined {
  const candidates = messages.filter((message) => message.role === 'user' || message.role === 'tool');
  const target = candidates[pick % Math.max(1, candidates.length)];
  if (target === undefined) return undefined;
  return {
    messages: messages.map((message) =>
      message === target ? { ...message, content: 'changed by ctxloom' } : message,
    ),
    id: target.id,
  };
}

function decorateOpenAI(messages: readonly Json[], coin: () => boolean): Json[] {
  return messages.map((message) => {
    const content = Array.isArray(message['content'])
      ? (message['content'] as Json[]).map((part) => {
          if (part['type'] === 'text' && coin()) return { ...part, cache_control: { type: 'ephemeral' } };
          if (part['type'] === 'image_url' && coin())
            return { ...part, image_url: { ...(part['image_url'] as Json), detail: 'low' } };
          return part;
        })
      : message['content'];
    const calls = Array.isArray(message['tool_calls'])
      ? {
          tool_calls: (message['tool_calls'] as Json[]).map((call) =>
            coin() ? { ...call, extra_content: { google: { thought_signature: 's' } } } : call,
          ),
        }
      : {};
    return { ...message, content, ...calls, ...(coin() ? { x_vendor: { seen: true } } : {}) };
  });
}

function decorateAnthropic(messages: readonly Json[], coin: () => boolean): Json[] {
  let markers = 0;
  return messages.map((message) => {
    const blocks = (message['content'] as Json[]).map((block) => {
      if (block['type'] === 'tool_result' && coin()) return { ...block, is_error: true };
      if (block['type'] === 'text' && markers < 3 && coin()) {
        markers += 1;
        return { ...block, cache_control: { type: 'ephemeral' } };
      }
      return block;
    });
    const thinking =
      message['role'] === 'assistant' && coin()
        ? [{ type: 'thinking', thinking: 'hm', signature: 'sig' }]
        : [];
    return { ...message, content: [...thinking, ...blocks] };
  });
}

function decorateResponses(items: readonly Json[], coin: () => boolean): Json[] {
  return items.flatMap((item, index): Json[] => {
    if (item['type'] === 'function_call') {
      const call = coin() ? { ...item, id: `fc_${index}`, status: 'completed' } : item;
      return coin()
        ? [{ type: 'reasoning', id: `rs_${index}`, summary: [], encrypted_content: 'e' }, call]
        : [call];
    }
    if (item['role'] === 'assistant' && coin())
      return [{ type: 'web_search_call', id: `ws_${index}`, status: 'completed' }, item];
    return [item];
  });
}

async function governed(messages: readonly Message[]): Promise<readonly Message[]> {
  return (await governor.prepareForModel(messages)).messages;
}

/**
 * When the governor changed nothing, the output deep-equals the input, object for object. When it
 * changed some messages, every foreign object all of whose ctxloom messages it kept as they were is
 * in the output as the same object.
 */
function expectKept<TForeign>(run: {
  readonly input: readonly TForeign[];
  readonly output: readonly TForeign[];
  readonly read: readonly Message[];
  readonly governed: readonly Message[];
  /** The foreign objects each ctxloom message was read from. */
  readonly sourcesOf: (message: Message) => readonly TForeign[];
}): void {
  if (run.governed === run.read) {
    expect(run.output).toEqual(run.input);
    run.output.forEach((item, index) => {
      expect(item).toBe(run.input[index]);
    });
    return;
  }
  const kept = new Set(run.governed);
  const touched = new Set(run.read.filter((message) => !kept.has(message)).flatMap(run.sourcesOf));
  const output = new Set(run.output);
  for (const item of run.input) if (!touched.has(item)) expect(output.has(item)).toBe(true);
}

describe('foreign histories come back unchanged, object for object', () => {
  test.prop(history)('OpenAI chat', async (conversation, pool, pick) => {
    const input = decorateOpenAI(toOpenAIChatMessages(conversation).messages, coins(pool));
    const read = fromOpenAIChatMessages(input);
    const result = await governed(read.messages);
    const back = toOpenAIChatMessages(result, { origins: read.origins });
    const sourcesOf = (message: Message) => [read.origins.messages.get(message.id)?.source];
    expectKept({ input, output: back.messages, read: read.messages, governed: result, sourcesOf });
    const change = changeOne(read.messages, pick);
    if (change === undefined) return;
    const changed = toOpenAIChatMessages(change.messages, { origins: read.origins }).messages;
    const at = read.messages.findIndex((message) => message.id === change.id);
    changed.forEach((message, index) => {
      if (index !== at) expect(message).toBe(input[index]);
      else expect(message).not.toBe(input[index]);
    });
  });

  test.prop(history)('Anthropic', async (conversation, pool, pick) => {
    const fresh = toAnthropicMessages(conversation);
    const input = { system: fresh.system, messages: decorateAnthropic(fresh.messages, coins(pool)) };
    const read = fromAnthropicMessages(input);
    const result = await governed(read.messages);
    const back = toAnthropicMessages(result, { origins: read.origins });
    if (result === read.messages) expect(back.system).toBe(input.system);
    // Block by block: dropping a message may merge its neighbours into one turn.
    const blocksOf = (messages: readonly unknown[]) =>
      messages.flatMap((message) => (message as { content: unknown[] }).content);
    const sourcesOf = (message: Message) =>
      (read.origins.messages.get(message.id)?.source as { content?: unknown[] } | undefined)?.content ?? [];
    expectKept({
      input: blocksOf(input.messages),
      output: blocksOf(back.messages),
      read: read.messages,
      governed: result,
      sourcesOf,
    });
    if (result === read.messages) {
      back.messages.forEach((message, index) => {
        expect(message).toBe(input.messages[index]);
      });
    }
    const change = changeOne(read.messages, pick);
    if (change === undefined) return;
    const changed = toAnthropicMessages(change.messages, { origins: read.origins }).messages;
    const source = read.origins.messages.get(change.id)?.source;
    expect(changed).toHaveLength(input.messages.length);
    changed.forEach((message, index) => {
      if (input.messages[index] !== source) expect(message).toBe(input.messages[index]);
      else expect(message).not.toBe(source);
    });
  });

  test.prop(history)('OpenAI Responses', async (conversation, pool, pick) => {
    const input = decorateResponses(toOpenAIResponsesInput(conversation).items, coins(pool));
    const read = fromOpenAIResponsesInput(input);
    const result = await governed(read.messages);
    const back = toOpenAIResponsesInput(result, { origins: read.origins });
    const sourcesOf = (message: Message) => read.origins.messages.get(message.id)?.source ?? [];
    expectKept({ input, output: back.items, read: read.messages, governed: result, sourcesOf });
    const change = changeOne(read.messages, pick);
    if (change === undefined) return;
    const changed = toOpenAIResponsesInput(change.messages, { origins: read.origins }).items;
    const source = read.origins.messages.get(change.id)?.source ?? [];
    expect(changed).toHaveLength(input.length);
    changed.forEach((item, index) => {
      if (!source.includes(input[index] as Json)) expect(item).toBe(input[index]);
    });
  });
});
