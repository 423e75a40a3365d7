import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { getHistory } from './get-history.js';

const ids = (messages: readonly Message[]): string[] => messages.map((message) => message.id);

function chat(count: number): Message[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0 ? user(`u${index}`, { id: `m${index}` }) : assistant(`a${index}`, { id: `m${index}` }),
  );
}

describe('getHistory', () => {
  it('replays everything when nothing is archived', () => {
    expect(ids(getHistory({ messages: chat(4), lastConsolidated: 0 }))).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('keeps at least the last 8 messages of an archived session, aligned to a user turn', () => {
    const messages = chat(20);
    expect(ids(getHistory({ messages, lastConsolidated: 20 }))).toEqual(ids(messages.slice(12)));
    expect(ids(getHistory({ messages, lastConsolidated: 10 }))).toEqual(ids(messages.slice(10)));
    // start 13 (an assistant) aligns to the next user turn at 14
    expect(ids(getHistory({ messages, lastConsolidated: 13 }))).toEqual(ids(messages.slice(12)));
  });

  it('extends the kept tail back to the user turn that started a long tool chain', () => {
    const calls = Array.from({ length: 5 }, (_, index) => [
      assistant('', { id: `c${index}`, toolCalls: [{ id: `t${index}`, name: 'run', arguments: '{}' }] }),
      tool('ok', { id: `r${index}`, toolCallId: `t${index}` }),
    ]).flat();
    const messages = [
      user('old', { id: 'u0' }),
      assistant('x', { id: 'a0' }),
      user('go', { id: 'u1' }),
      ...calls,
    ];
    expect(ids(getHistory({ messages, lastConsolidated: messages.length }))).toEqual(ids(messages.slice(2)));
  });

  it('applies the count cap, extending to the user turn on request', () => {
    const messages = chat(10);
    expect(ids(getHistory({ messages, lastConsolidated: 0 }, { maxMessages: 3 }))).toEqual(['m8', 'm9']);
    expect(
      ids(getHistory({ messages, lastConsolidated: 0 }, { maxMessages: 3, extendToUser: true })),
    ).toEqual(['m8', 'm9']);
  });

  it('drops a tool result whose call is not in the window', () => {
    const messages = [
      user('q', { id: 'u' }),
      tool('orphan', { id: 'o', toolCallId: 'gone' }),
      assistant('', { id: 'a', toolCalls: [{ id: 'k', name: 'f', arguments: '{}' }] }),
      tool('fine', { id: 't', toolCallId: 'k' }),
    ];
    expect(ids(getHistory({ messages, lastConsolidated: 0 }))).toEqual(['a', 't']);
  });

  it('caps by tokens from the newest message, re-aligning to a user turn', () => {
    const messages = chat(10).map((message) => ({
      ...message,
      content: `${message.content} ${'w'.repeat(36)}`,
    }));
    const counter = new SimpleTokenCounter();
    const each = counter.countMessage(messages[0] as Message);
    const out = getHistory({ messages, lastConsolidated: 0 }, { maxTokens: each * 3, tokenCounter: counter });
    expect(ids(out)).toEqual(['m8', 'm9']);
  });

  it('recovers the last user turn when the budget keeps no user message', () => {
    const messages = [user('question', { id: 'u' }), assistant('x'.repeat(400), { id: 'a' })];
    const out = getHistory(
      { messages, lastConsolidated: 0 },
      { maxTokens: 5, tokenCounter: new SimpleTokenCounter() },
    );
    expect(ids(out)).toEqual(['u', 'a']);
  });

  it('skips command turns and blank assistant text, and whitelists fields', () => {
    const messages: Message[] = [
      user('/new', { id: 'c', metadata: { nanobot: { _command: true } } }),
      user('hi', { id: 'u', metadata: { timestamp: '2026-01-01T00:00:00', nanobot: { sender_id: '1' } } }),
      assistant('  ', { id: 'blank' }),
      assistant('[Message Time: 2026-01-01 10:00]\nhello\n[image: ~/x.png]', { id: 'a' }),
    ];
    expect(getHistory({ messages, lastConsolidated: 0 })).toEqual([
      { id: 'u', role: 'user', content: 'hi' },
      { id: 'a', role: 'assistant', content: 'hello' },
    ]);
  });

  it('strips the runtime context only when the recorded suffix matches exactly', () => {
    const marker = { version: 1, sources: ['goal'], suffix: '[ctx]' };
    const messages = [
      user('hi\n\n[ctx]', { id: 'a', metadata: { runtimeContext: marker } }),
      user('edited', { id: 'b', metadata: { runtimeContext: marker } }),
      user(
        [
          { type: 'text', text: 'see' },
          { type: 'text', text: '[blk]' },
        ],
        {
          id: 'c',
          metadata: {
            runtimeContext: { version: 1, sources: ['x'], blocks: [{ type: 'text', text: '[blk]' }] },
          },
        },
      ),
    ];
    const out = getHistory({ messages, lastConsolidated: 0 }, { includeRuntimeContext: false });
    expect(out.map((message) => message.content)).toEqual(['hi', 'edited', [{ type: 'text', text: 'see' }]]);
    const kept = getHistory({ messages, lastConsolidated: 0 });
    expect(kept[0]).toEqual(messages[0]);
  });

  it('replays every unarchived message unless given a count cap (0 or Infinity: none, as in nanobot)', () => {
    const messages = chat(2_010);
    expect(getHistory({ messages, lastConsolidated: 0 })).toHaveLength(2_010);
    expect(getHistory({ messages, lastConsolidated: 0 }, { maxMessages: 0 })).toHaveLength(2_010);
    expect(
      getHistory({ messages, lastConsolidated: 0 }, { maxMessages: Number.POSITIVE_INFINITY }),
    ).toHaveLength(2_010);
    expect(getHistory({ messages, lastConsolidated: 0 }, { maxMessages: 2_000 })).toHaveLength(2_000);
  });

  it('replays a stored message to the same object on every call, per view', () => {
    const messages = [
      user('hello', { id: 'u1', metadata: { nanobot: { timestamp: '2026-11-28T09:30:00' } } }),
      assistant('[Message Time: 2026-11-28 09:30]\nhi', { id: 'a1' }),
      user('next', { id: 'u2' }),
    ];
    const first = getHistory({ messages, lastConsolidated: 0 });
    const again = getHistory({
      messages: [...messages, assistant('more', { id: 'a2' })],
      lastConsolidated: 0,
    });
    expect(again.slice(0, 3)).toEqual(first);
    first.forEach((message, index) => {
      expect(again[index]).toBe(message);
    });
    // The replayed form is not the stored one (fields whitelisted, time prefix stripped), and the
    // public view is its own object.
    expect(first[1]?.content).toBe('hi');
    const publicView = getHistory({ messages, lastConsolidated: 0 }, { includeRuntimeContext: false });
    expect(publicView[1]).toEqual(first[1]);
    expect(publicView[1]).not.toBe(first[1]);
    expect(getHistory({ messages, lastConsolidated: 0 }, { includeRuntimeContext: false })[1]).toBe(
      publicView[1],
    );
  });

  it('replays a message again when its fields were replaced in place', () => {
    const stored: { -readonly [K in keyof Message]: Message[K] } = user('old text', { id: 'u1' });
    const messages = [stored, assistant('hi', { id: 'a1' })];
    expect(getHistory({ messages, lastConsolidated: 0 })[0]?.content).toBe('old text');
    stored.content = 'edited';
    expect(getHistory({ messages, lastConsolidated: 0 })[0]?.content).toBe('edited');
  });

  it('does not mutate the session', () => {
    const messages = Object.freeze(chat(12).map((message) => Object.freeze(message)));
    const snapshot = JSON.stringify(messages);
    getHistory({ messages, lastConsolidated: 6 }, { maxTokens: 10 });
    expect(JSON.stringify(messages)).toBe(snapshot);
  });
});
