import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { StripMalformedToolCallsFilter } from './strip-malformed-tool-calls-filter.js';

const generateId = createSequentialIdGenerator('m');
const filter = new StripMalformedToolCallsFilter();

describe('StripMalformedToolCallsFilter', () => {
  it('keeps valid calls and drops nameless ones (a relay null name included)', () => {
    const nullName = null as unknown as string; // what an untrusted relay stores
    const message = assistant('checking', {
      generateId,
      toolCalls: [
        { id: 'c1', name: 'exec', arguments: '{}' },
        { id: 'c2', name: '', arguments: '{}' },
        { id: 'c3', name: nullName, arguments: '{}' },
      ],
    });
    const { messages, decisions } = filter.apply([user('go', { generateId }), message]);
    expect(messages[1]?.toolCalls).toEqual([{ id: 'c1', name: 'exec', arguments: '{}' }]);
    expect(decisions.map((entry) => [entry.type, entry.details?.['toolCallId']])).toEqual([
      ['tool-call-repair', 'c2'],
      ['tool-call-repair', 'c3'],
    ]);
  });

  it('removes toolCalls when none are valid and drops the assistant when its content is empty', () => {
    const withText = assistant('text stays', {
      generateId,
      toolCalls: [{ id: 'a', name: '', arguments: '' }],
    });
    const empty = assistant('', { generateId, toolCalls: [{ id: 'b', name: '', arguments: '' }] });
    const emptyList: Message = { ...assistant('hello', { generateId }), toolCalls: [] };
    const { messages, decisions } = filter.apply([withText, empty, emptyList]);
    expect(messages).toEqual([
      { id: withText.id, role: 'assistant', content: 'text stays' },
      { id: emptyList.id, role: 'assistant', content: 'hello' },
    ]);
    expect(decisions.some((entry) => entry.type === 'message-drop' && entry.messageIds[0] === empty.id)).toBe(
      true,
    );
  });

  it('drops calls without an id and renames a re-declared id together with its result', () => {
    const first = assistant('', { generateId, toolCalls: [{ id: 'call-1', name: 'exec', arguments: '{}' }] });
    const second = assistant('', {
      generateId,
      toolCalls: [
        { id: 'call-1', name: 'exec', arguments: '{"n":2}' },
        { id: '', name: 'exec', arguments: '{}' },
      ],
    });
    const input = [
      user('go', { generateId }),
      first,
      tool('one', { generateId, toolCallId: 'call-1' }),
      second,
      tool('two', { generateId, toolCallId: 'call-1' }),
    ];
    const { messages } = filter.apply(input);
    expect(messages[3]?.toolCalls).toEqual([{ id: 'call-1~2', name: 'exec', arguments: '{"n":2}' }]);
    expect(messages[4]).toMatchObject({ content: 'two', toolCallId: 'call-1~2' });
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(filter.apply(messages).messages).toBe(messages);
  });

  it('returns the same array for valid input', () => {
    const input = [assistant('', { generateId, toolCalls: [{ id: 'z', name: 'exec', arguments: '{}' }] })];
    expect(filter.apply(input).messages).toBe(input);
  });
});
