import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from './factories.js';
import { createSequentialIdGenerator } from './ids.js';
import { groupTransactions } from './transactions.js';

const generateId = createSequentialIdGenerator('m');

describe('groupTransactions', () => {
  it('groups an assistant with tool calls and its directly following results', () => {
    const messages = [
      user('u', { generateId }),
      assistant('', {
        generateId,
        toolCalls: [
          { id: 'a', name: 'ls' },
          { id: 'b', name: 'ls' },
        ],
      }),
      tool('ra', { generateId, toolCallId: 'a' }),
      tool('rb', { generateId, toolCallId: 'b' }),
      tool('orphan', { generateId, toolCallId: 'z' }),
      assistant('done', { generateId }),
    ];
    const units = groupTransactions(messages);
    expect(units.map((unit) => [unit.kind, unit.start, unit.messages.length])).toEqual([
      ['single', 0, 1],
      ['transaction', 1, 3],
      ['single', 4, 1],
      ['single', 5, 1],
    ]);
  });

  it('returns no units for no messages', () => {
    expect(groupTransactions([])).toEqual([]);
  });
});
