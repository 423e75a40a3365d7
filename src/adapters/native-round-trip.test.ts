import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import { fromAnthropicMessages } from './from-anthropic-messages.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { fromOpenAIResponsesInput } from './from-openai-responses-input.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';
import { toOpenAIResponsesInput } from './to-openai-responses-input.js';

/** What a store or a new process gives back: the messages as JSON, nothing else. */
function throughJson(messages: readonly Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages)) as Message[];
}

describe('Anthropic, without origins', () => {
  it('keeps a compaction block whole and first, with its content, encrypted content and signature', () => {
    const compaction = {
      type: 'compaction',
      content: 'Summary.',
      encrypted_content: 'ZW5j',
      signature: 'c2ln',
    };
    const request = {
      messages: [
        { role: 'assistant', content: [compaction] },
        { role: 'user', content: 'go on' },
      ],
    };
    const back = toAnthropicMessages(throughJson(fromAnthropicMessages(request).messages));
    expect(back.messages).toEqual(request.messages);
    expect(back.warnings).toEqual([]);
  });

  it('keeps signed and redacted thinking, server tool blocks and cache markers', () => {
    const request = {
      system: [{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'search', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Search first.', signature: 'c2ln' },
            { type: 'redacted_thinking', data: 'cmVk' },
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Found it.', citations: null },
            { type: 'tool_use', id: 'toolu_1', name: 'exec', input: { cmd: 'ls' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.md', is_error: true }],
        },
      ],
    };
    const read = fromAnthropicMessages(request);
    const back = toAnthropicMessages(throughJson(read.messages));
    expect(back.system).toEqual(request.system);
    expect(back.messages).toEqual(request.messages);
    expect(read.messages[3]).toMatchObject({ role: 'tool', output: 'error-text' });
  });

  it('moves a compaction block first and keeps one, with warnings', () => {
    const compaction = (content: string) => ({
      type: 'provider' as const,
      format: 'anthropic',
      kind: 'compaction',
      value: { type: 'compaction', content, encrypted_content: 'ZW5j', signature: 'c2ln' },
    });
    const back = toAnthropicMessages([
      { id: 'u', role: 'user', content: 'older' },
      { id: 'a', role: 'assistant', content: [compaction('first')] },
      { id: 'u2', role: 'user', content: 'more' },
      { id: 'a2', role: 'assistant', content: [compaction('second')] },
      { id: 'u3', role: 'user', content: 'next' },
    ]);
    const first = back.messages[0]?.content;
    expect(Array.isArray(first) ? first[0] : undefined).toMatchObject({
      type: 'compaction',
      content: 'second',
    });
    expect(JSON.stringify(back.messages).match(/"compaction"/g)).toHaveLength(1);
    expect(back.warnings.map((warning) => warning.message)).toEqual([
      'compaction block left out: Anthropic takes one, the one the conversation returned last',
      'compaction block moved first: Anthropic takes it only as the first block of the conversation',
    ]);
  });

  it('puts the thinking of the last assistant turn first', () => {
    const back = toAnthropicMessages([
      { id: 'u', role: 'user', content: 'go' },
      {
        id: 'a',
        role: 'assistant',
        content: [
          { type: 'text', text: 'Running.' },
          { type: 'reasoning', text: 'Plan.', signature: 'c2ln', provider: 'anthropic' },
        ],
        toolCalls: [{ id: 't1', name: 'exec', arguments: '{}' }],
      },
      { id: 't', role: 'tool', content: 'ok', toolCallId: 't1' },
    ]);
    const blocks = back.messages[1]?.content;
    expect(Array.isArray(blocks) ? blocks.map((block) => block.type) : []).toEqual([
      'thinking',
      'text',
      'tool_use',
    ]);
  });
});

describe('OpenAI Responses, without origins', () => {
  it('keeps the compaction item, reasoning with its encrypted content, item ids and statuses', () => {
    const input = [
      { type: 'compaction', id: 'cmp_1', encrypted_content: 'ZW5j' },
      { role: 'user', content: 'go' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'cmVh', status: 'completed' },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'c1',
        name: 'exec',
        arguments: '{}',
        status: 'completed',
      },
      { type: 'function_call_output', id: 'fco_1', call_id: 'c1', output: 'ok', status: 'completed' },
    ];
    const read = fromOpenAIResponsesInput(input);
    const back = toOpenAIResponsesInput(throughJson(read.messages));
    expect(back.items).toEqual(input);
    expect(back.warnings).toEqual([]);
  });

  it('sends a function_call without its id when its reasoning item is gone, and leaves out Anthropic thinking', () => {
    const read = fromOpenAIResponsesInput([
      { role: 'user', content: 'go' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'cmVh' },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'exec', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ]);
    const edited = read.messages.map((message): Message => {
      if (message.role !== 'assistant') return message;
      return {
        ...message,
        content: [{ type: 'reasoning', text: 'Plan.', signature: 'c2ln', provider: 'anthropic' }],
      };
    });
    const back = toOpenAIResponsesInput(edited);
    expect(back.items[1]).toEqual({ type: 'function_call', call_id: 'c1', name: 'exec', arguments: '{}' });
    expect(back.warnings.map((warning) => warning.message)).toEqual([
      'anthropic reasoning left out: the Responses API takes only its own reasoning items',
      'function_call c1 sent without its item id: its reasoning item is no longer in the conversation',
    ]);
  });
});

describe('OpenAI chat, without origins', () => {
  it('keeps developer, names, image detail, the tool name, "" beside calls, function_call: null and reasoning_content', () => {
    const messages = [
      { role: 'developer', content: 'Rules.' },
      {
        role: 'user',
        name: 'ana',
        content: [{ type: 'image_url', image_url: { url: 'https://example.test/a.png', detail: 'low' } }],
      },
      {
        role: 'assistant',
        content: '',
        function_call: null,
        reasoning_content: 'Look first.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'exec', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'ok' },
      { role: 'assistant', content: null, x_vendor: { seen: true } },
    ];
    const back = toOpenAIChatMessages(throughJson(fromOpenAIChatMessages(messages).messages));
    expect(back.messages).toEqual(messages);
    expect(back.warnings).toEqual([]);
  });

  it('sends content: [] beside calls as null, and says so', () => {
    const read = fromOpenAIChatMessages([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [],
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ]);
    const back = toOpenAIChatMessages(throughJson(read.messages));
    expect(back.messages[1]).toMatchObject({ content: null });
    expect(back.warnings.map((warning) => warning.message)).toEqual([
      'empty part list sent as null (OpenAI refuses an empty content array)',
    ]);
  });

  it('leaves out reasoning and provider parts of other formats, with a warning', () => {
    const read = fromAnthropicMessages({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Plan.', signature: 'c2ln' },
            { type: 'compaction', content: 'S', encrypted_content: 'ZW5j', signature: 'c2ln' },
            { type: 'text', text: 'Done.' },
          ],
        },
      ],
    });
    const back = toOpenAIChatMessages(read.messages);
    expect(back.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    expect(back.warnings.map((warning) => warning.type)).toEqual(['unsupported-part', 'unsupported-part']);
  });
});
