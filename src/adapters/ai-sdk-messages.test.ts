import { modelMessageSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

const original = [
  system('s', { id: 's', metadata: { section: 'persona' } }),
  user(
    [
      { type: 'text', text: 'see' },
      { type: 'image', url: 'data:image/png;base64,iVBO', mediaType: 'image/png', path: '/tmp/a.png' },
    ],
    { id: 'u' },
  ),
  assistant('', {
    id: 'a',
    reasoning: 'hm',
    toolCalls: [
      { id: 'c1', name: 'exec', arguments: '{"cmd": "ls"}' },
      { id: 'c2', name: 'grep', arguments: 'not json' },
    ],
  }),
  tool('out', { id: 't1', toolCallId: 'c1', name: 'exec' }),
  tool(
    [
      { type: 'text', text: 'img' },
      { type: 'image', url: 'data:image/png;base64,AAAA', mediaType: 'image/png' },
    ],
    { id: 't2', toolCallId: 'c2', name: 'grep' },
  ),
  assistant('done', { id: 'z' }),
];

describe('AI SDK adapters', () => {
  it('produce valid ModelMessages and round-trip exactly', () => {
    const there = toAiSdkMessages(original);
    expect(there.warnings).toEqual([]);
    for (const message of there.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
    expect(there.messages[2]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hm' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'exec', input: { cmd: 'ls' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: {} },
      ],
    });
    expect(there.messages[3]).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'exec', output: { type: 'text', value: 'out' } },
      ],
    });
    expect(fromAiSdkMessages(there.messages).messages).toEqual(original);
  });

  it('reads plain AI SDK messages (several results in one tool message, json output, URL images)', () => {
    const { messages, warnings } = fromAiSdkMessages([
      { role: 'user', content: [{ type: 'image', image: new URL('https://example.test/a.png') }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool-call', toolCallId: 'k1', toolName: 'f', input: { q: 1 } },
          { type: 'tool-call', toolCallId: 'k2', toolName: 'g', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'k1',
            toolName: 'f',
            output: { type: 'json', value: { ok: true } },
          },
          { type: 'tool-result', toolCallId: 'k2', toolName: 'g', output: { type: 'text', value: 'fine' } },
        ],
      },
    ]);
    expect(messages).toEqual([
      { id: 'ai-sdk-0', role: 'user', content: [{ type: 'image', url: 'https://example.test/a.png' }] },
      {
        id: 'ai-sdk-1',
        role: 'assistant',
        content: 'a',
        toolCalls: [
          { id: 'k1', name: 'f', arguments: '{"q":1}' },
          { id: 'k2', name: 'g', arguments: '{}' },
        ],
      },
      { id: 'ai-sdk-2', role: 'tool', content: '{"ok":true}', toolCallId: 'k1', name: 'f' },
      { id: 'ai-sdk-2-2', role: 'tool', content: 'fine', toolCallId: 'k2', name: 'g' },
    ]);
    expect(warnings).toEqual([
      { type: 'converted', index: 2, message: 'json tool output read as JSON text' },
    ]);
  });
});
