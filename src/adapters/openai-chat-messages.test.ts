import { describe, expect, it } from 'vitest';
import { openAIChatRequestMessagesSchema } from '../../test/fixtures/schemas/openai-chat-request.js';
import { assistant, system, tool, user } from '../core/factories.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';

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

  it('reads developer, refusal and reasoning_content, and rejects unknown roles', () => {
    const { messages, warnings } = fromOpenAIChatMessages([
      { role: 'developer', content: 'rules' },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }], reasoning_content: 'why' },
    ]);
    expect(messages).toEqual([
      { id: 'openai-0', role: 'system', content: 'rules' },
      { id: 'openai-1', role: 'assistant', content: [{ type: 'text', text: 'no' }], reasoning: 'why' },
    ]);
    expect(warnings.map((warning) => warning.type)).toEqual(['converted', 'converted']);
    expect(() => fromOpenAIChatMessages([{ role: 'wizard', content: '' }])).toThrow(/role "wizard"/);
    expect(() => fromOpenAIChatMessages(['nope'])).toThrow(/not an object/);
  });
});
