/**
 * The conversation of issue #25: everything `fromAiSdkMessages` → JSON (a store, a new process) →
 * `toAiSdkMessages` lost before message format 2, and what a governed step keeps of a message it
 * changes.
 */
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../test/fixtures/ai-sdk/model-message-arbitraries.js';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };

function conversation(): ModelMessage[] {
  return [
    { role: 'system', content: 'You are careful.', providerOptions: cache },
    { role: 'user', content: [{ type: 'text', text: 'Count the hits.', providerOptions: cache }] },
    {
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Search first.',
          providerOptions: { anthropic: { signature: 'EqQBCkYIBxgC' } },
        },
        { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'cmVkYWN0ZWQ=' } } },
        { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'search', input: { q: 'x' } },
        { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'exec', input: { cmd: 'false' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_1',
          toolName: 'search',
          output: { type: 'json', value: { hits: 3 } },
        },
        {
          type: 'tool-result',
          toolCallId: 'toolu_2',
          toolName: 'exec',
          output: { type: 'error-text', value: 'exit 1' },
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Three hits.',
          providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAAB' } },
        },
        { type: 'text', text: '3 hits; exec failed.', providerOptions: { openai: { itemId: 'msg_1' } } },
      ],
    },
  ];
}

describe('fromAiSdkMessages → JSON → toAiSdkMessages (no origins)', () => {
  it('gives back the signature, the redacted reasoning, every cacheControl, json and error-text outputs and OpenAI item ids', () => {
    const input = conversation();
    const stored: Message[] = JSON.parse(JSON.stringify(fromAiSdkMessages(input).messages));
    expect(stored[2]?.content).toEqual([
      { type: 'reasoning', text: 'Search first.', provider: 'anthropic', signature: 'EqQBCkYIBxgC' },
      { type: 'reasoning', text: '', provider: 'anthropic', redactedData: 'cmVkYWN0ZWQ=' },
    ]);
    expect(stored[3]).toMatchObject({ content: '{"hits":3}', output: 'json' });
    expect(stored[4]).toMatchObject({ content: 'exit 1', output: 'error-text' });
    expect(stored[5]?.content).toEqual([
      {
        type: 'reasoning',
        text: 'Three hits.',
        provider: 'openai',
        encryptedContent: 'gAAAAB',
        providerOptions: { openai: { itemId: 'rs_1' } },
      },
      { type: 'text', text: '3 hits; exec failed.', providerOptions: { openai: { itemId: 'msg_1' } } },
    ]);
    const back = toAiSdkMessages(stored);
    expect(back.warnings).toEqual([]);
    expect(back.messages).toEqual(input);
  });

  it('keeps, through a governed step that truncates a result, every field the stage did not mean to change', async () => {
    const input = conversation();
    const long = `${'line\n'.repeat(4_000)}end`;
    const tool = input[3] as Extract<ModelMessage, { role: 'tool' }>;
    tool.content[1] = {
      type: 'tool-result',
      toolCallId: 'toolu_2',
      toolName: 'exec',
      output: { type: 'error-text', value: long },
      providerOptions: cache,
    };
    const read = fromAiSdkMessages(input);
    const governed = await new ContextGovernor({
      contextWindowTokens: 1_000_000,
      maxToolResultChars: 2_000,
    }).prepareForModel(JSON.parse(JSON.stringify(read.messages)));
    const changed = governed.messages.find((message) => message.toolCallId === 'toolu_2');
    expect(changed?.content).not.toBe(long);
    const back = toAiSdkMessages(governed.messages);
    expect(back.warnings).toEqual([]);
    const result = (back.messages[3] as Extract<ModelMessage, { role: 'tool' }>).content[1];
    expect(result).toMatchObject({
      toolCallId: 'toolu_2',
      output: { type: 'error-text' },
      providerOptions: cache,
    });
    // Every other message is exactly what was read.
    back.messages.forEach((message, index) => {
      if (index !== 3) expect(canonicalJson(message)).toBe(canonicalJson(input[index]));
    });
    const first = (back.messages[3] as Extract<ModelMessage, { role: 'tool' }>).content[0];
    expect(first).toEqual(tool.content[0]);
  });
});
