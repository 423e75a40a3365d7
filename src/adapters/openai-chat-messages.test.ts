import { describe, expect, it } from 'vitest';
import { richOpenAIChatHistory } from '../../test/fixtures/openai-chat/rich-history.js';
import { openAIChatRequestMessagesSchema } from '../../test/fixtures/schemas/openai-chat-request.js';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message, ToolCall } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';
import { toOpenAIResponsesInput } from './to-openai-responses-input.js';

const image = { type: 'image' as const, url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' };

describe('toOpenAIChatMessages', () => {
  it('produces the chat completions shapes', () => {
    const { messages, warnings } = toOpenAIChatMessages([
      system('Be brief.'),
      user([{ type: 'text', text: 'look' }, image]),
      assistant('', {
        toolCalls: [{ id: 'c1', name: 'exec', arguments: '{"cmd":"ls"}' }],
        reasoning: 'think',
      }),
      tool('a.md', { toolCallId: 'c1', name: 'exec' }),
      assistant('done'),
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: image.url } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'exec', arguments: '{"cmd":"ls"}' } }],
      },
      { role: 'tool', content: 'a.md', tool_call_id: 'c1' },
      { role: 'assistant', content: 'done' },
    ]);
    expect(warnings).toEqual([{ type: 'dropped-field', index: 2, message: 'assistant reasoning omitted' }]);
    expect(openAIChatRequestMessagesSchema.safeParse(messages).success).toBe(true);
  });

  it('passes reasoning as reasoning_content when asked', () => {
    const { messages, warnings } = toOpenAIChatMessages([assistant('x', { reasoning: 'r' })], {
      reasoning: 'reasoning_content',
    });
    expect(messages).toEqual([{ role: 'assistant', content: 'x', reasoning_content: 'r' }]);
    expect(warnings).toEqual([]);
  });
});

describe('fromOpenAIChatMessages', () => {
  it('keeps a relay null tool name representable, and the governor repairs the session', async () => {
    const stored = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: null, arguments: { a: 1 } } }],
      },
      { role: 'tool', tool_call_id: 'x', content: 'lost' },
      { role: 'user', content: 'again' },
    ];
    const { messages } = fromOpenAIChatMessages(stored);
    expect(messages[2]?.toolCalls).toEqual([{ id: 'x', name: '', arguments: '{"a":1}' }]);
    const governed = await new ContextGovernor().prepareForModel(messages);
    expect(governed.messages.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    const request = toOpenAIChatMessages(governed.messages).messages;
    expect(openAIChatRequestMessagesSchema.safeParse(request).success).toBe(true);
  });

  it('round-trips (ids aside) and recovers tool names from their calls', () => {
    const original = [
      system('s', { id: 'openai-0' }),
      user([{ type: 'text', text: 'see' }, image], { id: 'openai-1', name: 'ann' }),
      assistant('', { id: 'openai-2', toolCalls: [{ id: 'c', name: 'grep', arguments: '{}' }] }),
      tool([{ type: 'text', text: 'hit' }], { id: 'openai-3', toolCallId: 'c', name: 'grep' }),
    ];
    const there = toOpenAIChatMessages(original);
    expect(there.warnings).toEqual([]);
    expect(fromOpenAIChatMessages(there.messages).messages).toEqual(original);
    expect(validateToolCallIntegrity(original)).toEqual([]);
  });

  it('reads developer, refusal and reasoning_content, and rejects what it cannot read, naming the path', () => {
    const { messages, warnings } = fromOpenAIChatMessages([
      { role: 'developer', content: 'rules' },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }], reasoning_content: 'why' },
    ]);
    expect(messages).toEqual([
      { id: 'openai-0', role: 'system', content: 'rules', native: { 'openai-chat': { role: 'developer' } } },
      {
        id: 'openai-1',
        role: 'assistant',
        content: [
          {
            type: 'provider',
            format: 'openai-chat',
            kind: 'refusal',
            value: { type: 'refusal', refusal: 'no' },
          },
        ],
        reasoning: 'why',
        native: { 'openai-chat': { ctxloom: { reasoning: 'reasoning_content' } } },
      },
    ]);
    expect(warnings).toEqual([]);
    expect(() => fromOpenAIChatMessages([{ role: 'wizard', content: '' }])).toThrow(
      'Invalid OpenAI chat input at messages[0].role: expected one of system, developer, user, assistant, tool, received "wizard" (string).',
    );
    expect(() => fromOpenAIChatMessages(['nope'])).toThrow(
      'Invalid OpenAI chat input at messages[0]: expected a message object, received "nope" (string).',
    );
    expect(() => fromOpenAIChatMessages([{ role: 'user', content: 42 }])).toThrow(
      'at messages[0].content: expected a string, an array of content parts or null, received 42 (number).',
    );
    expect(() => fromOpenAIChatMessages([{ role: 'assistant', content: null, tool_calls: [7] }])).toThrow(
      'at messages[0].tool_calls[0]: expected a tool call object, received 7 (number).',
    );
  });
});

describe('OpenAI chat adapters are lossless', () => {
  it('give back every message as the same object when nothing changed', async () => {
    const history = richOpenAIChatHistory();
    const read = fromOpenAIChatMessages(history);
    const governed = await new ContextGovernor({ contextWindowTokens: 100_000 }).prepareForModel(
      read.messages,
    );
    const back = toOpenAIChatMessages(governed.messages, { origins: read.origins });
    expect(back.messages).toHaveLength(history.length);
    back.messages.forEach((message, index) => {
      expect(message).toBe(history[index]);
    });
    expect(back.warnings).toEqual([]);
  });

  it('re-emit a changed message with only the changed fields', () => {
    const history = richOpenAIChatHistory();
    const read = fromOpenAIChatMessages(history);
    const edited = read.messages.map((message): Message => {
      if (message.id === 'openai-3') {
        const calls = message.toolCalls ?? [];
        return {
          ...message,
          toolCalls: [calls[0] as ToolCall, { ...(calls[1] as ToolCall), arguments: '{}' }],
        };
      }
      return message.id === 'openai-4' ? { ...message, content: 'truncated' } : message;
    });
    const back = toOpenAIChatMessages(edited, { origins: read.origins, reasoning: 'reasoning_content' });
    back.messages.forEach((message, index) => {
      if (index !== 3 && index !== 4) expect(message).toBe(history[index]);
    });
    const source = history[3] as { tool_calls: Record<string, unknown>[] };
    expect(back.messages[3]).toEqual({
      ...history[3],
      tool_calls: [
        source.tool_calls[0],
        { ...source.tool_calls[1], function: { name: 'exec', arguments: '{}' } },
      ],
    });
    expect(back.messages[4]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'truncated' });
    // The caller's own extensions (cache_control, extra_content) are kept, so check the pairing only.
    expect(validateToolCallIntegrity(fromOpenAIChatMessages(back.messages).messages)).toEqual([]);
  });

  it('make names legal for OpenAI, or drop them, with a warning', () => {
    const long = 'x'.repeat(70);
    const { messages, warnings } = toOpenAIChatMessages([
      user('a', { name: 'John Doe' }),
      user('b', { name: 'José' }),
      user('c', { name: long }),
      user('d', { name: '日本' }),
      user('e', { name: 'ok_name-1' }),
    ]);
    expect(messages.map((message) => ('name' in message ? message.name : undefined))).toEqual([
      'John_Doe',
      'Jose',
      'x'.repeat(64),
      undefined,
      'ok_name-1',
    ]);
    expect(warnings.map((warning) => [warning.type, warning.index])).toEqual([
      ['repaired', 0],
      ['repaired', 1],
      ['repaired', 2],
      ['repaired', 3],
    ]);
  });

  it('never send a stray tool result first or a call without a name', () => {
    const { messages, warnings } = toOpenAIChatMessages([
      system('s'),
      tool('stray', { toolCallId: 'gone' }),
      user('u'),
      assistant('', {
        toolCalls: [
          { id: 'k', name: '', arguments: '{}' },
          { id: 'k2', name: 'ls', arguments: '{}' },
        ],
      }),
      tool('x', { toolCallId: 'k' }),
      tool('y', { toolCallId: 'k2' }),
    ]);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(openAIChatRequestMessagesSchema.safeParse(messages).success).toBe(true);
    expect(warnings.map((warning) => warning.message)).toEqual([
      'tool result answers no call (gone); dropped',
      'tool call "k" has no tool name; dropped with its result',
    ]);
  });
});

describe('to* adapters check what they are given', () => {
  it('name the path of what is not a ctxloom message, in every format', () => {
    // Plain JavaScript input that is not a message.
    const bad = [user('ok'), { id: 'x', role: 'usr', content: 'hi' }] as unknown as Message[];
    const expected =
      'at messages[1].role: expected one of system, user, assistant, tool, received "usr" (string).';
    expect(() => toOpenAIChatMessages(bad)).toThrow(expected);
    expect(() => toAnthropicMessages(bad)).toThrow(expected);
    expect(() => toOpenAIResponsesInput(bad)).toThrow(expected);
    const noContent = [{ id: 'y', role: 'user', content: 42 }] as unknown as Message[];
    expect(() => toOpenAIChatMessages(noContent)).toThrow(
      'at messages[0].content: expected a string or an array of parts, received 42 (number).',
    );
  });
});
