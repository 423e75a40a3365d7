import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { assistant, system, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextPipeline } from '../pipeline/context-pipeline.js';
import { catchError } from '../testing/catch-error.js';
import { sanitizeToolCallHistory } from './sanitize-tool-call-history.js';
import { SanitizeToolCallsFilter } from './sanitize-tool-calls-filter.js';

const ids = (messages: readonly Message[]): readonly string[] => messages.map((message) => message.id);
const call = (id: string, name = 'exec') => ({ id, name, arguments: '{}' });

describe('sanitizeToolCallHistory', () => {
  it('returns the same array for a legal history', () => {
    const input = [
      system('s'),
      user('q'),
      assistant('', { toolCalls: [call('c1'), call('c2')] }),
      tool('2', { toolCallId: 'c2' }),
      tool('1', { toolCallId: 'c1' }),
      user('next'),
    ];
    const result = sanitizeToolCallHistory(input);
    expect(result.messages).toBe(input);
    expect(result.decisions).toEqual([]);
  });

  it('removes a historical transaction with a missing result and says why', () => {
    const input = [
      user('q', { id: 'u' }),
      assistant('', { id: 'a', toolCalls: [call('c1'), call('c2')] }),
      tool('1', { id: 'r1', toolCallId: 'c1' }),
      user('next', { id: 'n' }),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(ids(messages)).toEqual(['u', 'n']);
    expect(decisions).toEqual([
      expect.objectContaining({
        type: 'message-drop',
        messageIds: ['a', 'r1'],
        details: { toolCallIds: ['c2'] },
      }),
    ]);
    expect(decisions[0]?.reason).toContain('call c2 has no result');
  });

  it('removes historical transactions with duplicate or extra results, and orphan results', () => {
    const input = [
      user('q', { id: 'u' }),
      assistant('', { id: 'a1', toolCalls: [call('c1')] }),
      tool('1', { id: 'r1', toolCallId: 'c1' }),
      tool('1 again', { id: 'r1b', toolCallId: 'c1' }),
      assistant('', { id: 'a2', toolCalls: [call('c2')] }),
      tool('2', { id: 'r2', toolCallId: 'c2' }),
      tool('9', { id: 'r9', toolCallId: 'c9' }),
      user('mid', { id: 'm' }),
      tool('stray', { id: 'stray', toolCallId: 'c7' }),
      assistant('ok', { id: 'ok' }),
      user('now', { id: 'now' }),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(ids(messages)).toEqual(['u', 'm', 'ok', 'now']);
    expect(decisions.map((item) => item.messageIds)).toEqual([
      ['a1', 'r1', 'r1b'],
      ['a2', 'r2', 'r9'],
      ['stray'],
    ]);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
  });

  it('renames a later transaction that reuses a call id already declared, the call and its result', () => {
    const input = [
      assistant('', { id: 'a1', toolCalls: [call('c1')] }),
      tool('1', { id: 'r1', toolCallId: 'c1' }),
      assistant('', { id: 'a2', toolCalls: [call('c1')] }),
      tool('2', { id: 'r2', toolCallId: 'c1' }),
      user('now', { id: 'now' }),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(ids(messages)).toEqual(['a1', 'r1', 'a2', 'r2', 'now']);
    expect(messages[2]?.toolCalls?.[0]?.id).toBe('c1_1');
    expect(messages[3]?.toolCallId).toBe('c1_1');
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(decisions[0]).toMatchObject({
      type: 'tool-call-repair',
      messageIds: ['a2', 'r2'],
      details: { toolCallId: 'c1', newToolCallId: 'c1_1' },
    });
  });

  it('does not throw on a valid current turn that reuses a call id from history (call_0 again)', () => {
    const input = [
      user('q1'),
      assistant('', { id: 'a1', toolCalls: [call('call_0')] }),
      tool('old', { id: 'r1', toolCallId: 'call_0' }),
      assistant('done', { id: 'a1b' }),
      user('q2'),
      assistant('', { id: 'a2', toolCalls: [call('call_0'), call('call_0_1')] }),
      tool('new', { id: 'r2', toolCallId: 'call_0' }),
      tool('other', { id: 'r3', toolCallId: 'call_0_1' }),
    ];
    const { messages } = sanitizeToolCallHistory(input);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(messages[5]?.toolCalls?.map((entry) => entry.id)).toEqual(['call_0_2', 'call_0_1']);
    expect(messages.slice(6).map((message) => message.toolCallId)).toEqual(['call_0_2', 'call_0_1']);
    expect(input[5]?.toolCalls?.[0]?.id).toBe('call_0');
  });

  it('removes a call with an empty tool name and its result, with a decision', () => {
    const input = [
      user('q'),
      assistant('', { id: 'a1', toolCalls: [{ id: 'c1', name: '', arguments: '{}' }, call('c2')] }),
      tool('x', { id: 'r1', toolCallId: 'c1' }),
      tool('y', { id: 'r2', toolCallId: 'c2' }),
      assistant('', { id: 'a2', toolCalls: [{ id: 'c3', name: ' ', arguments: '{}' }] }),
      tool('z', { id: 'r3', toolCallId: 'c3' }),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(ids(messages)).toEqual([input[0]?.id, 'a1', 'r2']);
    expect(messages[1]?.toolCalls?.map((entry) => entry.id)).toEqual(['c2']);
    expect(decisions.map((entry) => [entry.type, entry.messageIds])).toEqual([
      ['tool-call-repair', ['a1', 'r1']],
      ['tool-call-repair', ['a2', 'r3']],
    ]);
  });

  it('throws TOOL_CALL_INTEGRITY naming the call ids when the current tail transaction is broken', () => {
    const input = [
      user('q'),
      assistant('', { toolCalls: [call('c1'), call('c2'), call('c3')] }),
      tool('1', { toolCallId: 'c1' }),
    ];
    const error = catchError(() => sanitizeToolCallHistory(input));
    expect(ContextError.isInstance(error) && error.code).toBe('TOOL_CALL_INTEGRITY');
    expect((error as Error).message).toContain('call ids: c2, c3');
    expect((error as ContextError).details).toMatchObject({ toolCallIds: ['c2', 'c3'] });
  });

  it('throws for an orphan result at the end and for unanswered calls at the end', () => {
    expect(() => sanitizeToolCallHistory([user('q'), tool('x', { toolCallId: 'c5' })])).toThrow(/c5/);
    expect(() => sanitizeToolCallHistory([user('q'), assistant('', { toolCalls: [call('c6')] })])).toThrow(
      /call c6 has no result/,
    );
  });

  it('backfills a missing call id from the single adjacent result', () => {
    const input = [
      assistant('', { id: 'a', toolCalls: [call('', 'read_file')] }),
      tool('text', { id: 'r', toolCallId: 'call_9', name: 'read_file' }),
      user('now'),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(messages[0]?.toolCalls?.[0]?.id).toBe('call_9');
    expect(messages[1]).toBe(input[1]);
    expect(decisions).toEqual([
      expect.objectContaining({ type: 'tool-call-repair', messageIds: ['a', 'r'] }),
    ]);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(input[0]?.toolCalls?.[0]?.id).toBe('');
  });

  it('backfills parallel calls when the results match by name in order', () => {
    const input = [
      assistant('', { toolCalls: [call('', 'read_file'), call('', 'exec')] }),
      tool('a', { toolCallId: 'x1', name: 'read_file' }),
      tool('b', { toolCallId: 'x2', name: 'exec' }),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(messages[0]?.toolCalls?.map((item) => item.id)).toEqual(['x1', 'x2']);
    expect(decisions).toHaveLength(2);
  });

  it('does not guess when the pairing is ambiguous, and removes the transaction instead', () => {
    const input = [
      assistant('', { id: 'a', toolCalls: [call('', 'read_file'), call('', 'exec')] }),
      tool('b', { toolCallId: 'x2', name: 'exec' }),
      tool('a', { toolCallId: 'x1', name: 'read_file' }),
      user('now', { id: 'now' }),
    ];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(ids(messages)).toEqual(['now']);
    expect(decisions[0]?.type).toBe('message-drop');
  });

  it('gives both sides a new id when neither has one', () => {
    const input = [assistant('', { toolCalls: [call('')] }), tool('out', { toolCallId: '' })];
    const { messages } = sanitizeToolCallHistory(input, { generateId: createSequentialIdGenerator('call') });
    expect(messages[0]?.toolCalls?.[0]?.id).toBe('call-1');
    expect(messages[1]?.toolCallId).toBe('call-1');
  });

  it('removes an empty toolCalls list and keeps the message', () => {
    const input = [user('q'), { ...assistant('thinking', { id: 'a' }), toolCalls: [] }, user('now')];
    const { messages, decisions } = sanitizeToolCallHistory(input);
    expect(messages[1]).toEqual({ id: 'a', role: 'assistant', content: 'thinking' });
    expect(decisions[0]?.type).toBe('tool-call-repair');
  });

  it('runs as the sanitize-tool-calls filter and records its decisions in the trace', async () => {
    const pipeline = new ContextPipeline({ filters: [new SanitizeToolCallsFilter()] });
    const { messages, trace } = await pipeline.transform([
      tool('x', { id: 'stray', toolCallId: 'c' }),
      user('q', { id: 'q' }),
    ]);
    expect(ids(messages)).toEqual(['q']);
    expect(trace.stages[0]).toMatchObject({
      id: 'sanitize-tool-calls',
      decisions: [{ messageIds: ['stray'] }],
    });
  });
});
