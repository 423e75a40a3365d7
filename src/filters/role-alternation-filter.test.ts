import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import { RoleAlternationFilter } from './role-alternation-filter.js';

const filter = new RoleAlternationFilter();

describe('RoleAlternationFilter', () => {
  it('merges same-role neighbours (strings with a blank line, parts concatenated, tool calls concatenated)', () => {
    const image = { type: 'image' as const, url: 'https://example.test/a.png' };
    const input = [
      user('one', { id: 'u1' }),
      user([image], { id: 'u2' }),
      assistant('first', { id: 'a1' }),
      assistant('second', { id: 'a2', toolCalls: [{ id: 'c', name: 'exec', arguments: '{}' }] }),
      user('three', { id: 'u3' }),
    ];
    const { messages, decisions } = filter.apply(input);
    expect(messages).toEqual([
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'one' }, image] },
      {
        id: 'a1',
        role: 'assistant',
        content: 'first\n\nsecond',
        toolCalls: [{ id: 'c', name: 'exec', arguments: '{}' }],
      },
      { id: 'u3', role: 'user', content: 'three' },
    ]);
    expect(decisions.map((entry) => entry.type)).toEqual(['message-merge', 'message-merge']);
  });

  it('merges two messages of one role with system messages between them, after those', () => {
    // A property test's counterexample: a blank assistant, a system message, then an assistant whose
    // call is answered right after it.
    const call = { id: 'c', name: 'read_file', arguments: '{}' };
    const input = [
      system('rules', { id: 's1' }),
      user('go', { id: 'u1' }),
      assistant('thinking', { id: 'a1' }),
      system('runtime note', { id: 's2' }),
      assistant('', { id: 'a2', toolCalls: [call] }),
      tool('data', { id: 't', toolCallId: 'c', name: 'read_file' }),
      user('next', { id: 'u2' }),
    ];
    const { messages } = filter.apply(input);
    expect(messages.map((message) => `${message.role}:${message.id}`)).toEqual([
      'system:s1',
      'user:u1',
      'system:s2',
      'assistant:a1',
      'tool:t',
      'user:u2',
    ]);
    expect(messages[3]).toMatchObject({ content: 'thinking', toolCalls: [call] });
  });

  it('inserts (conversation continued) before a leading assistant and drops trailing assistants', () => {
    const input = [
      system('s', { id: 's' }),
      assistant('hello', { id: 'a1' }),
      user('q', { id: 'u' }),
      assistant('tail', { id: 'a2' }),
    ];
    const { messages, decisions } = filter.apply(input);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['system', 's'],
      ['user', '(conversation continued)'],
      ['assistant', 'hello'],
      ['user', 'q'],
    ]);
    expect(decisions.map((entry) => entry.type).sort()).toEqual(['message-drop', 'message-insert']);
  });

  it('turns a lone trailing assistant into a user message and fills empty contents', () => {
    const { messages } = filter.apply([system('s', { id: 's' }), assistant('only', { id: 'a' })]);
    expect(messages).toEqual([system('s', { id: 's' }), { id: 'a', role: 'user', content: 'only' }]);
    const filled = filter.apply([user('', { id: 'u' })]).messages;
    expect(filled).toEqual([{ id: 'u', role: 'user', content: '(empty)' }]);
  });

  it('changes nothing in a legal list (same array) and is idempotent', () => {
    const legal = [system('s'), user('a'), assistant('b'), user('c')];
    expect(filter.apply(legal).messages).toBe(legal);
    const fixed = filter.apply([assistant('x'), assistant('y'), user('')]).messages;
    expect(filter.apply(fixed).messages).toBe(fixed);
  });
});
