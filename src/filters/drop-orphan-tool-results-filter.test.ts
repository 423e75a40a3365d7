import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { DropOrphanToolResultsFilter } from './drop-orphan-tool-results-filter.js';

const generateId = createSequentialIdGenerator('m');
const call = (id: string) => ({ id, name: 'exec', arguments: '{}' });

describe('DropOrphanToolResultsFilter', () => {
  it('drops undeclared, id-less, duplicate and separated results; the first result wins', () => {
    const asks = assistant('', { generateId, toolCalls: [call('a'), call('b')] });
    const first = tool('A', { generateId, toolCallId: 'a' });
    const duplicate = tool('A again', { generateId, toolCallId: 'a' });
    const undeclared = tool('?', { generateId, toolCallId: 'zzz' });
    const noId = tool('?', { generateId, toolCallId: '' });
    const later = user('next', { generateId });
    const separated = tool('B late', { generateId, toolCallId: 'b' });
    const input = [user('go', { generateId }), asks, first, duplicate, undeclared, noId, later, separated];
    const { messages, decisions } = new DropOrphanToolResultsFilter().apply(input);
    expect(messages).toEqual([input[0], asks, first, later]);
    expect(decisions.map((entry) => entry.messageIds[0])).toEqual([
      duplicate.id,
      undeclared.id,
      noId.id,
      separated.id,
    ]);
    expect(decisions.every((entry) => entry.type === 'message-drop')).toBe(true);
  });

  it('returns the same array when every result is paired', () => {
    const input = [
      assistant('', { generateId, toolCalls: [call('q')] }),
      tool('ok', { generateId, toolCallId: 'q' }),
    ];
    expect(new DropOrphanToolResultsFilter().apply(input).messages).toBe(input);
  });
});
