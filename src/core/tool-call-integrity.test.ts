import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from './factories.js';
import { createSequentialIdGenerator } from './ids.js';
import { validateToolCallIntegrity } from './tool-call-integrity.js';

const generateId = createSequentialIdGenerator('m');
const call = (id: string, name = 'read_file') => ({ id, name, arguments: '{}' });

describe('validateToolCallIntegrity', () => {
  it('accepts a legal conversation with parallel calls', () => {
    const messages = [
      system('s', { generateId }),
      user('u', { generateId }),
      assistant('', { generateId, toolCalls: [call('a'), call('b')] }),
      tool('ra', { generateId, toolCallId: 'a' }),
      tool('rb', { generateId, toolCallId: 'b' }),
      assistant('done', { generateId }),
    ];
    expect(validateToolCallIntegrity(messages)).toEqual([]);
  });

  it('reports orphan, duplicate and missing results', () => {
    const messages = [
      tool('orphan', { generateId, toolCallId: 'x' }),
      assistant('', { generateId, toolCalls: [call('a'), call('b')] }),
      tool('ra', { generateId, toolCallId: 'a' }),
      tool('ra again', { generateId, toolCallId: 'a' }),
      user('u', { generateId }),
    ];
    expect(validateToolCallIntegrity(messages).map((v) => [v.type, v.index, v.toolCallId])).toEqual([
      ['orphan-result', 0, 'x'],
      ['duplicate-result', 3, 'a'],
      ['missing-result', 1, 'b'],
    ]);
  });

  it('reports a result separated from its call by another message', () => {
    const messages = [
      assistant('', { generateId, toolCalls: [call('a')] }),
      user('interrupt', { generateId }),
      tool('ra', { generateId, toolCallId: 'a' }),
    ];
    expect(validateToolCallIntegrity(messages).map((v) => v.type)).toEqual([
      'missing-result',
      'orphan-result',
    ]);
  });

  it('reports empty tool-call lists, empty and duplicate call ids', () => {
    const empty = { ...assistant('x', { generateId }), toolCalls: [] };
    const messages = [
      empty,
      assistant('', { generateId, toolCalls: [call(''), call('a')] }),
      tool('ra', { generateId, toolCallId: 'a' }),
      assistant('', { generateId, toolCalls: [call('a')] }),
    ];
    expect(validateToolCallIntegrity(messages).map((v) => v.type)).toEqual([
      'empty-tool-calls',
      'empty-call-id',
      'duplicate-call-id',
    ]);
  });

  it('reports a tool message without an id', () => {
    const bad = { id: 'm', role: 'tool' as const, content: 'r' };
    expect(validateToolCallIntegrity([bad]).map((v) => v.type)).toEqual(['missing-result-id']);
  });
});
