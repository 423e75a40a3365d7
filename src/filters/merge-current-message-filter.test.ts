import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../core/factories.js';
import { MergeCurrentMessageFilter } from './merge-current-message-filter.js';

const current = (content: string, metadata: Record<string, unknown> = {}) =>
  user(content, { id: 'cur', metadata: { section: 'current-message', ...metadata } });

describe('MergeCurrentMessageFilter', () => {
  const filter = new MergeCurrentMessageFilter();

  it('merges the current message into a preceding user message, current metadata winning', () => {
    const input = [
      system('S', { id: 's' }),
      user('unanswered', { id: 'h', metadata: { a: 1, b: 1 } }),
      current('again', { b: 2 }),
    ];
    const { messages, decisions } = filter.apply(input);
    expect(messages).toEqual([
      input[0],
      {
        id: 'cur',
        role: 'user',
        content: 'unanswered\n\nagain',
        metadata: { a: 1, b: 2, section: 'current-message', mergedFrom: 'h' },
      },
    ]);
    expect(decisions).toEqual([expect.objectContaining({ type: 'message-merge', messageIds: ['h', 'cur'] })]);
  });

  it('merges an assistant-role current message into a copy of a trailing assistant message', () => {
    const previous = assistant('Checking.', {
      id: 'h',
      toolCalls: [{ id: 'c1', name: 'exec', arguments: '{}' }],
      reasoning: 'look first',
    });
    const now = assistant('Still checking.', { id: 'cur', metadata: { section: 'current-message' } });
    const { messages } = filter.apply([user('q', { id: 'q' }), previous, now]);
    expect(messages[1]).toEqual({
      ...previous,
      id: 'cur',
      content: 'Checking.\n\nStill checking.',
      metadata: { section: 'current-message', mergedFrom: 'h' },
    });
  });

  it('merges only the nearest message, once', () => {
    const input = [user('u1', { id: 'u1' }), user('u2', { id: 'u2' }), current('now')];
    const first = filter.apply(input);
    expect(first.messages.map((message) => message.content)).toEqual(['u1', 'u2\n\nnow']);
    expect(filter.apply(first.messages).messages).toBe(first.messages);
  });

  it('appends when the roles differ and returns the same array', () => {
    const input = [user('q', { id: 'q' }), assistant('a', { id: 'a' }), current('next')];
    const result = filter.apply(input);
    expect(result.messages).toBe(input);
    expect(result.decisions).toEqual([]);
  });

  it('reports skipped attachments as decisions', () => {
    const input = [current('hi', { skippedMedia: [{ path: '/x.png', reason: 'missing' }] })];
    const { messages, decisions } = filter.apply(input);
    expect(messages).toBe(input);
    expect(decisions[0]).toMatchObject({
      type: 'section-skip',
      reason: 'Attached file /x.png was left out (missing).',
    });
  });
});
