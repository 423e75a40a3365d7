import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { LenientMessageCoercer } from './lenient-message-coercer.js';
import { MaxCountRetention } from './max-count-retention.js';
import { MemorySessionStore } from './memory-session-store.js';
import { MessageStore } from './message-store.js';
import type { MessageEvent } from './session-store.js';

const stripStamp = <T extends { metadata?: unknown }>(message: T) => {
  const { metadata: _metadata, ...rest } = message;
  return rest;
};

describe('MessageStore', () => {
  it('appends valid messages and emits one event each', async () => {
    const store = new MessageStore({ sessionKey: 's', generateId: createSequentialIdGenerator('m') });
    const events: MessageEvent[] = [];
    store.subscribe((event) => events.push(event));
    await store.append([{ role: 'user', content: 'hi' }, assistant('hello', { id: 'a' })]);
    expect((await store.messages()).map(stripStamp)).toEqual([
      { id: 'm-1', role: 'user', content: 'hi' },
      { id: 'a', role: 'assistant', content: 'hello' },
    ]);
    expect(events.map((event) => event.message.id)).toEqual(['m-1', 'a']);
  });

  it('rejects a bad batch naming the field path and writes nothing', async () => {
    const store = new MessageStore({ sessionKey: 's' });
    const bad = [
      user('fine'),
      { role: 'assistant', content: 'x', toolCalls: [{ id: 'c', name: 3, arguments: '{}' }] },
    ];
    await expect(store.append(bad)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('input[1].toolCalls[0].name'),
    });
    await expect(store.append('just text')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(store.append({ role: 'wizard', content: 'x' })).rejects.toThrow(/input\.role/);
    expect(await store.messages()).toEqual([]);
  });

  it('the lenient coercer refuses a message with no content field, naming it (a tool-calling assistant may omit it)', async () => {
    const store = new MessageStore({ sessionKey: 's', coercer: new LenientMessageCoercer() });
    for (const value of [{ role: 'user' }, { type: 'human' }, { role: 'tool', tool_call_id: 'c' }])
      await expect(store.append([user('ok'), value])).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/^Cannot make a message from input\[1\]: it has no "content" field/),
      });
    expect(await store.messages()).toEqual([]);
    await store.append([
      {
        role: 'assistant',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'user', content: null },
    ]);
    expect((await store.messages()).map((message) => message.content)).toEqual(['', '']);
  });

  it('coerces loose input with the lenient coercer', async () => {
    const store = new MessageStore({
      sessionKey: 's',
      coercer: new LenientMessageCoercer(),
      generateId: createSequentialIdGenerator('m'),
    });
    const coerced = await store.append([
      'plain text',
      { type: 'human', content: 'from LangChain' },
      { type: 'ai', content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x' } }] },
      { role: 'tool', tool_call_id: 'c1', content: { hits: 1 } },
      { role: 'assistant', content: 'ok', reasoning_content: 'thought' },
      { role: 'developer', text: 'be brief' },
      42,
    ]);
    expect(coerced.map(stripStamp)).toEqual([
      { id: 'm-1', role: 'user', content: 'plain text' },
      { id: 'm-2', role: 'user', content: 'from LangChain' },
      {
        id: 'm-3',
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }],
      },
      { id: 'm-4', role: 'tool', toolCallId: 'c1', content: '{"hits":1}' },
      { id: 'm-5', role: 'assistant', content: 'ok', reasoning: 'thought' },
      { id: 'm-6', role: 'system', content: 'be brief' },
      { id: 'm-7', role: 'user', content: '42' },
    ]);
    await expect(store.append({ nothing: true })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(store.append(null)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('coerces serialised LangChain messages and LangChain-like instances', async () => {
    const store = new MessageStore({
      sessionKey: 's',
      coercer: new LenientMessageCoercer(),
      generateId: createSequentialIdGenerator('m'),
    });
    class FakeAIMessage {
      readonly content = 'from an instance';
      readonly tool_calls = [{ id: 'c9', name: 'lookup', args: { x: 1 }, type: 'tool_call' }];
      _getType(): string {
        return 'ai';
      }
    }
    const coerced = await store.append([
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'HumanMessage'],
        kwargs: { content: 'serialised' },
      },
      new FakeAIMessage(),
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'ToolMessage'],
        kwargs: { content: 'ok', tool_call_id: 'c9' },
      },
    ]);
    expect(coerced.map(stripStamp)).toEqual([
      { id: 'm-1', role: 'user', content: 'serialised' },
      {
        id: 'm-2',
        role: 'assistant',
        content: 'from an instance',
        toolCalls: [{ id: 'c9', name: 'lookup', arguments: '{"x":1}' }],
      },
      { id: 'm-3', role: 'tool', toolCallId: 'c9', content: 'ok' },
    ]);
  });

  it('serialises appends in call order', async () => {
    const store = new MessageStore({ sessionKey: 's', store: new MemorySessionStore() });
    await Promise.all(
      Array.from({ length: 30 }, (_, index) => store.append(user(`${index}`, { id: `${index}` }))),
    );
    expect((await store.messages()).map((message) => message.id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `${i}`),
    );
  });

  it('keeps the newest n messages without splitting a tool transaction', async () => {
    const backing = new MemorySessionStore();
    const store = new MessageStore({ sessionKey: 's', store: backing, retention: new MaxCountRetention(3) });
    await store.append([user('u1', { id: 'u1' }), assistant('a1', { id: 'a1' })]);
    await backing.setLastConsolidated('s', 2);
    await store.append([
      assistant('', {
        id: 'c',
        toolCalls: [
          { id: 't1', name: 'f' },
          { id: 't2', name: 'g' },
        ],
      }),
      tool('r1', { id: 'r1', toolCallId: 't1' }),
      tool('r2', { id: 'r2', toolCallId: 't2' }),
      user('u2', { id: 'u2' }),
    ]);
    const record = await store.load();
    expect(record.messages.map((message) => message.id)).toEqual(['u2']);
    expect(record.lastConsolidated).toBe(0);
    await store.append(assistant('a2', { id: 'a2' }));
    expect((await store.messages()).map((message) => message.id)).toEqual(['u2', 'a2']);
  });

  it('validates the retention limit', () => {
    expect(() => new MaxCountRetention(0)).toThrow(/≥ 1/);
  });
});
