import { describe, expect, it } from 'vitest';
import { assistant, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { StripPlaceholderAssistantsFilter } from './strip-placeholder-assistants-filter.js';

const generateId = createSequentialIdGenerator('m');

describe('StripPlaceholderAssistantsFilter', () => {
  it('removes placeholder assistants (after trimming) but keeps those with tool calls or list content', () => {
    const placeholder = assistant('  [Previous assistant message omitted.]\n', { generateId });
    const withCalls = assistant('[Previous assistant message omitted.]', {
      generateId,
      toolCalls: [{ id: 'c1', name: 'exec', arguments: '{}' }],
    });
    const asParts = assistant([{ type: 'text', text: '[Previous assistant message omitted.]' }], {
      generateId,
    });
    const input = [user('hi', { generateId }), placeholder, withCalls, asParts];
    const filter = new StripPlaceholderAssistantsFilter();
    const { messages, decisions } = filter.apply(input);
    expect(messages).toEqual([input[0], withCalls, asParts]);
    expect(decisions).toEqual([
      expect.objectContaining({
        type: 'message-drop',
        stage: 'strip-placeholder-assistants',
        messageIds: [placeholder.id],
      }),
    ]);
  });

  it('returns the same array when there is nothing to strip, and honours custom placeholders', () => {
    const input = [user('hi', { generateId }), assistant('(omitted)', { generateId })];
    expect(new StripPlaceholderAssistantsFilter().apply(input).messages).toBe(input);
    const custom = new StripPlaceholderAssistantsFilter({ placeholders: ['(omitted)'] });
    expect(custom.apply(input).messages).toEqual([input[0]]);
  });
});
