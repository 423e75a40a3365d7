import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from './factories.js';
import { safeParseMessage } from './message-schema.js';

describe('safeParseMessage', () => {
  it('accepts messages made by the factories', () => {
    const call = { id: 'c1', name: 'grep', arguments: { pattern: 'x' } };
    for (const message of [
      user(
        [
          { type: 'text', text: 'look' },
          { type: 'image', url: 'data:image/png;base64,AA==' },
        ],
        { id: 'u' },
      ),
      assistant('', { id: 'a', toolCalls: [call] }),
      tool('found', { id: 't', toolCallId: 'c1', name: 'grep' }),
    ]) {
      expect(safeParseMessage(message)).toEqual({ success: true, value: message });
    }
  });

  it('names the bad field', () => {
    const result = safeParseMessage({ id: 'x', role: 'user', content: [{ type: 'text', text: 3 }] });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.issues[0]?.path).toBe('content');
    const noId = safeParseMessage({ id: 't', role: 'tool', content: 'r' });
    expect(noId.success === false && noId.issues.map((issue) => issue.path)).toEqual(['toolCallId']);
    const callsOnUser = safeParseMessage({ id: 'u', role: 'user', content: '', toolCalls: [] });
    expect(callsOnUser.success === false && callsOnUser.issues.map((issue) => issue.path)).toEqual([
      'toolCalls',
    ]);
  });

  it('rejects unknown fields', () => {
    const result = safeParseMessage({ id: 'x', role: 'user', content: 'hi', colour: 'red' });
    expect(result.success).toBe(false);
  });
});
