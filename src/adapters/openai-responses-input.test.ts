import { describe, expect, it } from 'vitest';
import { richResponsesInput } from '../../test/fixtures/openai-responses/rich-input.js';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message, ToolCall } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { fromOpenAIResponsesInput } from './from-openai-responses-input.js';
import { toOpenAIResponsesInput } from './to-openai-responses-input.js';

describe('OpenAI Responses adapters', () => {
  it('read messages, one assistant message per run of output items, and the call outputs', () => {
    const { messages, warnings } = fromOpenAIResponsesInput(richResponsesInput());
    expect(messages).toEqual([
      {
        id: 'responses-0',
        role: 'system',
        content: 'Follow the house rules.',
        native: { 'openai-responses': { type: 'message', role: 'developer' } },
      },
      {
        id: 'responses-1',
        role: 'user',
        content: [
          { type: 'text', text: 'What does the chart show? Then run the tests.' },
          {
            type: 'image',
            url: 'data:image/png;base64,iVBORw0KGgo=',
            mediaType: 'image/png',
            native: { 'openai-responses': { detail: 'high' } },
          },
        ],
        native: { 'openai-responses': { type: 'message' } },
      },
      {
        id: 'responses-2',
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Look, then run.',
            provider: 'openai',
            encryptedContent: 'gAAAAB...',
            native: { 'openai-responses': { id: 'rs_1' } },
          },
          {
            type: 'provider',
            format: 'openai-responses',
            kind: 'web_search_call',
            value: {
              type: 'web_search_call',
              id: 'ws_1',
              status: 'completed',
              action: { type: 'search', query: 'chart' },
            },
          },
          { type: 'text', text: 'A rising line.', native: { 'openai-responses': { annotations: [] } } },
        ],
        toolCalls: [
          {
            id: 'call_1',
            name: 'exec',
            arguments: '{"cmd":"npm test"}',
            native: { 'openai-responses': { id: 'fc_1', status: 'completed' } },
          },
          {
            id: 'call_2',
            name: 'read_file',
            arguments: '{"path":"a.ts"}',
            native: { 'openai-responses': { id: 'fc_2', status: 'completed' } },
          },
        ],
        native: {
          'openai-responses': {
            ctxloom: {
              items: [
                { kind: 'reasoning' },
                { kind: 'provider' },
                { kind: 'message', parts: 1, fields: { id: 'msg_1', status: 'completed', type: 'message' } },
                { kind: 'call', id: 'call_1' },
                { kind: 'call', id: 'call_2' },
              ],
            },
          },
        },
      },
      { id: 'responses-7', role: 'tool', content: 'exit 1', toolCallId: 'call_1', name: 'exec' },
      {
        id: 'responses-8',
        role: 'tool',
        content: [{ type: 'text', text: 'export {};' }],
        toolCallId: 'call_2',
        name: 'read_file',
      },
      {
        id: 'responses-9',
        role: 'user',
        content: 'Fix it.',
        native: { 'openai-responses': { type: 'message' } },
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('give back every item as the same object when nothing changed', async () => {
    const input = richResponsesInput();
    const read = fromOpenAIResponsesInput(input);
    const governed = await new ContextGovernor({ contextWindowTokens: 100_000 }).prepareForModel(
      read.messages,
    );
    const { items, warnings } = toOpenAIResponsesInput(governed.messages, { origins: read.origins });
    expect(items).toHaveLength(input.length);
    items.forEach((item, index) => {
      expect(item).toBe(input[index]);
    });
    expect(warnings).toEqual([]);
  });

  it('re-emit a changed message with only what changed; reasoning and unknown items stay', () => {
    const input = richResponsesInput();
    const read = fromOpenAIResponsesInput(input);
    const edited = read.messages.flatMap((message): Message[] => {
      if (message.id === 'responses-7') return [];
      if (message.id === 'responses-8') return [{ ...message, content: 'compacted' }];
      if (message.id === 'responses-2')
        return [{ ...message, toolCalls: [message.toolCalls?.[1] as ToolCall] }];
      return [message];
    });
    const { items } = toOpenAIResponsesInput(edited, { origins: read.origins });
    expect(items).toEqual([
      input[0],
      input[1],
      input[2],
      input[3],
      input[4],
      input[6],
      { type: 'function_call_output', call_id: 'call_2', output: 'compacted' },
      input[9],
    ]);
    // Unchanged messages come back as the very items (origins); the changed run is rebuilt equal.
    for (const index of [0, 1]) expect(items[index]).toBe(input[index]);
  });

  it('write new items, repair the pairing and leave out unsigned reasoning', () => {
    const { items, warnings } = toOpenAIResponsesInput([
      system('Be brief.'),
      tool('stray', { toolCallId: 'nobody' }),
      user([
        { type: 'text', text: 'see' },
        { type: 'image', url: 'https://example.test/a.png' },
      ]),
      assistant('Looking.', { reasoning: 'hm', toolCalls: [{ id: 'c1', name: 'grep', arguments: '{}' }] }),
      user('next'),
    ]);
    expect(items).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'see' },
          { type: 'input_image', detail: 'auto', image_url: 'https://example.test/a.png' },
        ],
      },
      { role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'c1', name: 'grep', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'c1',
        output: '[Tool result unavailable: the call was not answered]',
      },
      { role: 'user', content: 'next' },
    ]);
    expect(warnings.map((warning) => warning.message)).toEqual([
      'tool result answers no call (nobody); dropped',
      'call c1 (grep) had no result; answered with a placeholder',
      'reasoning text left out (the Responses API takes reasoning only as reasoning items)',
    ]);
  });

  it('read a string input, and name the path of what it cannot read', () => {
    expect(fromOpenAIResponsesInput('hello').messages).toEqual([
      { id: 'responses-0', role: 'user', content: 'hello' },
    ]);
    expect(() => fromOpenAIResponsesInput([{ type: 'message', role: 'robot', content: 'x' }])).toThrow(
      'Invalid OpenAI Responses input at input[0].role: expected user, assistant, system or developer, received "robot" (string).',
    );
    expect(() => fromOpenAIResponsesInput([{ role: 'user', content: 3 }])).toThrow(
      'at input[0].content: expected a string or an array of content items, received 3 (number).',
    );
  });
});
