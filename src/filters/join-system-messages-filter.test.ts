import { describe, expect, it } from 'vitest';
import { system, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { testBuildContext } from '../providers/test-context.js';
import { JoinSystemMessagesFilter } from './join-system-messages-filter.js';

const part = (id: string, section: string, text: string): Message =>
  system(text, { id, metadata: { section } });

describe('JoinSystemMessagesFilter', () => {
  const filter = new JoinSystemMessagesFilter();

  it('joins the leading system parts with the separator and records each part', () => {
    const input = [
      part('a', 'identity', 'ID'),
      part('b', 'memory', 'MEM'),
      user('hi', { id: 'u' }),
      system('late', { id: 's' }),
    ];
    const { messages, decisions } = filter.apply(input, {}, testBuildContext());
    expect(messages.map((message) => message.content)).toEqual(['ID\n\n---\n\nMEM', 'hi', 'late']);
    expect(messages[0]?.metadata).toEqual({
      section: 'system-prompt',
      parts: [
        { section: 'identity', chars: 2 },
        { section: 'memory', chars: 3 },
      ],
    });
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      type: 'message-merge',
      stage: 'join-system-messages',
      messageIds: ['a', 'b'],
    });
  });

  it('is idempotent and returns the same array when there is nothing to join', () => {
    const first = filter.apply(
      [part('a', 'identity', 'A'), part('b', 'memory', 'B')],
      {},
      testBuildContext(),
    );
    const again = filter.apply(first.messages, {}, testBuildContext());
    expect(again.messages).toBe(first.messages);
    expect(again.decisions).toEqual([]);
    const noSystem = [user('hi')];
    expect(filter.apply(noSystem, {}, testBuildContext()).messages).toBe(noSystem);
  });

  it('labels a lone system message with its single part', () => {
    const { messages, decisions } = filter.apply(
      [part('a', 'persona', 'P'), user('x')],
      {},
      testBuildContext(),
    );
    expect(messages[0]?.metadata?.['parts']).toEqual([{ section: 'persona', chars: 1 }]);
    expect(messages[0]?.id).toBe('a');
    expect(decisions).toEqual([]);
  });

  it('honours a custom separator', () => {
    const custom = new JoinSystemMessagesFilter({ separator: '\n\n' });
    const { messages } = custom.apply([part('a', 'x', 'A'), part('b', 'y', 'B')], {}, testBuildContext());
    expect(messages[0]?.content).toBe('A\n\nB');
  });
});
