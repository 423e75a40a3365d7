import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { BackfillToolResultsFilter } from './backfill-tool-results-filter.js';

const generateId = createSequentialIdGenerator('m');

describe('BackfillToolResultsFilter', () => {
  it('inserts the spec text after the assistant and its results, keeping later offsets right', () => {
    const first = assistant('', {
      generateId,
      toolCalls: [
        { id: 'a', name: 'exec', arguments: '{}' },
        { id: 'b', name: 'grep', arguments: '{}' },
      ],
    });
    const second = assistant('', {
      generateId,
      toolCalls: [{ id: 'c', name: 'web_fetch', arguments: '{}' }],
    });
    const input = [
      user('go', { generateId }),
      first,
      tool('A', { generateId, toolCallId: 'a' }),
      second,
      user('?', { generateId }),
    ];
    const { messages, decisions } = new BackfillToolResultsFilter().apply(input);
    expect(messages.map((message) => [message.role, message.toolCallId ?? null])).toEqual([
      ['user', null],
      ['assistant', null],
      ['tool', 'a'],
      ['tool', 'b'],
      ['assistant', null],
      ['tool', 'c'],
      ['user', null],
    ]);
    expect(messages[3]).toEqual({
      id: `${first.id}:backfill:b`,
      role: 'tool',
      content: '[Tool result unavailable — call was interrupted or lost]',
      toolCallId: 'b',
      name: 'grep',
    });
    expect(decisions.map((entry) => entry.type)).toEqual(['tool-result-backfill', 'tool-result-backfill']);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(new BackfillToolResultsFilter().apply(messages).messages).toBe(messages);
  });

  it('puts a backfilled result in the section of its assistant', () => {
    const asks = assistant('', {
      generateId,
      metadata: { section: 'history' },
      toolCalls: [{ id: 'q', name: 'exec', arguments: '{}' }],
    });
    const { messages } = new BackfillToolResultsFilter().apply([asks]);
    expect(messages[1]?.metadata).toEqual({ section: 'history' });
  });
});
