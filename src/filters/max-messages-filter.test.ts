import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextPipeline } from '../pipeline/context-pipeline.js';
import { catchError } from '../testing/catch-error.js';
import { MaxMessagesFilter } from './max-messages-filter.js';

const ids = (messages: readonly Message[]): readonly string[] => messages.map((message) => message.id);

describe('MaxMessagesFilter', () => {
  it('reproduces the seed example: pinned prefix plus the newest N tail messages', () => {
    const input = [
      system('s1', { id: 'sys1' }),
      system('s2', { id: 'sys2' }),
      user('q1', { id: 'u1' }),
      assistant('r1', { id: 'a1' }),
      user('q2', { id: 'u2' }),
      assistant('r2', { id: 'a2' }),
      user('q3', { id: 'u3' }),
      assistant('r3', { id: 'a3' }),
    ];
    const { messages, decisions } = new MaxMessagesFilter({ maxMessages: 5, pinnedRoles: ['system'] }).apply(
      input,
    );
    expect(ids(messages)).toEqual(['sys1', 'sys2', 'a1', 'u2', 'a2', 'u3', 'a3']);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ type: 'message-drop', stage: 'max-messages', messageIds: ['u1'] });
  });

  it('returns the same array when the tail already fits', () => {
    const input = [system('s'), user('q'), assistant('a')];
    const result = new MaxMessagesFilter({ maxMessages: 2 }).apply(input);
    expect(result.messages).toBe(input);
    expect(result.decisions).toEqual([]);
  });

  it('pins only the leading run of pinned roles', () => {
    const input = [
      system('s', { id: 's' }),
      user('q', { id: 'u' }),
      system('late', { id: 'late' }),
      user('r', { id: 'v' }),
    ];
    const { messages } = new MaxMessagesFilter({ maxMessages: 1 }).apply(input);
    expect(ids(messages)).toEqual(['s', 'v']);
  });

  it('drops a transaction that does not fit whole, and everything older', () => {
    const input = [
      system('s', { id: 's' }),
      user('old', { id: 'u0' }),
      assistant('', {
        id: 'call',
        toolCalls: [
          { id: 'c1', name: 'exec' },
          { id: 'c2', name: 'exec' },
        ],
      }),
      tool('one', { id: 'r1', toolCallId: 'c1', name: 'exec' }),
      tool('two', { id: 'r2', toolCallId: 'c2', name: 'exec' }),
      assistant('done', { id: 'a' }),
      user('next', { id: 'u1' }),
    ];
    const { messages, decisions } = new MaxMessagesFilter({ maxMessages: 4 }).apply(input);
    expect(ids(messages)).toEqual(['s', 'a', 'u1']);
    expect(decisions[0]?.messageIds).toEqual(['u0', 'call', 'r1', 'r2']);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
  });

  it('keeps a transaction with its results when it fits whole', () => {
    const input = [
      user('old', { id: 'u0' }),
      assistant('', { id: 'call', toolCalls: [{ id: 'c1', name: 'exec' }] }),
      tool('one', { id: 'r1', toolCallId: 'c1' }),
      user('next', { id: 'u1' }),
    ];
    const { messages } = new MaxMessagesFilter({ maxMessages: 3 }).apply(input);
    expect(ids(messages)).toEqual(['call', 'r1', 'u1']);
  });

  it('honours custom pinned roles', () => {
    const input = [
      system('s', { id: 's' }),
      user('pinned', { id: 'p' }),
      assistant('a', { id: 'a' }),
      user('q', { id: 'q' }),
    ];
    const { messages } = new MaxMessagesFilter({ maxMessages: 1, pinnedRoles: ['system', 'user'] }).apply(
      input,
    );
    expect(ids(messages)).toEqual(['s', 'p', 'q']);
  });

  it('rejects a maxMessages below 1 or not an integer', () => {
    for (const maxMessages of [0, -1, 2.5, Number.NaN]) {
      expect(() => new MaxMessagesFilter({ maxMessages })).toThrow(/maxMessages must be an integer ≥ 1/);
    }
    expect(catchError(() => new MaxMessagesFilter({ maxMessages: 0 }))).toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });

  it('runs inside a pipeline and its decision reaches the trace', async () => {
    const pipeline = new ContextPipeline({ filters: [new MaxMessagesFilter({ maxMessages: 1 })] });
    const { messages, trace } = await pipeline.transform([user('a', { id: 'x' }), user('b', { id: 'y' })]);
    expect(ids(messages)).toEqual(['y']);
    expect(trace.stages[0]?.decisions[0]?.messageIds).toEqual(['x']);
  });
});
