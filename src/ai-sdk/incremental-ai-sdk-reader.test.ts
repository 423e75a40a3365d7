import { fc, test } from '@fast-check/vitest';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { IncrementalAiSdkReader } from './incremental-ai-sdk-reader.js';
import { readAiSdkMessages } from './read-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

const format = 'AI SDK';
const leading = [{ id: 'ctxloom-ai-sdk-system-0', role: 'system' as const, content: 'be brief' }];

describe('IncrementalAiSdkReader', () => {
  test.prop([
    conversationArbitrary({ minUnits: 1, maxUnits: 10 }),
    fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
  ])('reads a list that grows as readAiSdkMessages reads it whole', (conversation, cuts) => {
    const all = toAiSdkMessages(conversation, { carryMetadata: false }).messages;
    const reader = new IncrementalAiSdkReader({ format });
    for (const cut of [...cuts.map((value) => value % (all.length + 1)).sort((a, b) => a - b), all.length]) {
      const list = all.slice(0, cut);
      const read = reader.read(list, leading);
      const fresh = readAiSdkMessages(list, { format });
      expect(read.messages).toEqual([...leading, ...fresh.messages]);
      expect(read.warnings).toEqual(fresh.warnings);
      expect([...read.origins.messages.keys()]).toEqual([...fresh.origins.messages.keys()]);
    }
  });

  it('gives the same array and objects when nothing is new, and finds the messages of a source', () => {
    const list: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'exec', output: { type: 'text', value: '1' } },
          { type: 'tool-result', toolCallId: 'b', toolName: 'exec', output: { type: 'text', value: '2' } },
        ],
      },
    ];
    const reader = new IncrementalAiSdkReader({ format });
    const first = reader.read([...list], leading);
    const again = reader.read([...list], leading);
    expect(again.messages).toBe(first.messages);
    expect(again.positionsOf(list[1])).toEqual([2, 3]);
    expect(again.positionsOf(list[0])).toEqual([1]);
    expect(again.positionsOf({ role: 'user', content: 'hi' })).toEqual([]);
    const grown = reader.read([...list, { role: 'user', content: 'next' }], leading);
    expect(grown.messages.slice(0, 4)).toEqual(first.messages);
    expect(grown.messages.slice(0, 4).every((message, index) => message === first.messages[index])).toBe(
      true,
    );
  });

  it('reads again a message edited in place (content, parts, provider options)', () => {
    const user = { role: 'user' as const, content: [{ type: 'text' as const, text: 'one' }] };
    const reader = new IncrementalAiSdkReader({ format });
    expect(reader.read([user]).messages[0]?.content).toEqual([{ type: 'text', text: 'one' }]);
    user.content.push({ type: 'text', text: 'two' });
    expect(reader.read([user]).messages[0]?.content).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    user.content = [{ type: 'text', text: 'three' }];
    expect(reader.read([user]).messages[0]?.content).toEqual([{ type: 'text', text: 'three' }]);
    Object.assign(user, { providerOptions: { ctxloom: { id: 'named' } } });
    expect(reader.read([user]).messages[0]?.id).toBe('named');
  });

  it('starts over after a message that cannot be read', () => {
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const ok: ModelMessage = { role: 'user', content: 'hi' };
    const bad = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'exec', input: circular }],
    };
    const reader = new IncrementalAiSdkReader({ format });
    expect(() => reader.read([ok, bad])).toThrow();
    const fixed: ModelMessage = { role: 'assistant', content: 'fixed' };
    const read = reader.read([ok, fixed]);
    expect(read.messages.map((message) => message.id)).toEqual(['ai-sdk-0', 'ai-sdk-1']);
    expect(read.positionsOf(fixed)).toEqual([1]);
  });

  it('returns nothing read before a failed read once it starts over (the same leading messages, an empty list)', () => {
    const reader = new IncrementalAiSdkReader({ format });
    const ok: ModelMessage = { role: 'user', content: 'hi' };
    expect(reader.read([ok], leading).messages).toHaveLength(2);
    expect(() => reader.read([ok, { role: 'assistant', content: 42 }], leading)).toThrow();
    const empty = reader.read([], leading);
    expect(empty.messages).toEqual(leading);
    expect(empty.warnings).toEqual([]);
    expect(empty.positionsOf(ok)).toEqual([]);
  });
});
