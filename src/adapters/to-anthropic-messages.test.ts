import { describe, expect, it } from 'vitest';
import { anthropicRequestSchema } from '../../test/fixtures/schemas/anthropic-messages-request.js';
import { assistant, system, tool, user } from '../core/factories.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';

describe('toAnthropicMessages', () => {
  it('hoists system, puts tool results first in the next user turn and merges same roles', () => {
    const result = toAnthropicMessages([
      system('one'),
      system('two'),
      user('hi'),
      assistant('let me look', {
        toolCalls: [
          { id: 'call:1', name: 'exec', arguments: '{"cmd":"ls"}' },
          { id: 'c2', name: 'grep', arguments: '[1]' },
        ],
      }),
      tool('a.md', { toolCallId: 'call:1', name: 'exec' }),
      tool(
        [
          { type: 'text', text: 'match' },
          { type: 'image', url: 'https://example.test/x.png' },
        ],
        { toolCallId: 'c2', name: 'grep' },
      ),
      user('thanks'),
      assistant('ok'),
    ]);
    expect(result.system).toBe('one\n\ntwo');
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'let me look' },
          { type: 'tool_use', id: 'call_1', name: 'exec', input: { cmd: 'ls' } },
          { type: 'tool_use', id: 'c2', name: 'grep', input: { value: [1] } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'a.md' },
          {
            type: 'tool_result',
            tool_use_id: 'c2',
            content: [
              { type: 'text', text: 'match' },
              { type: 'image', source: { type: 'url', url: 'https://example.test/x.png' } },
            ],
          },
          { type: 'text', text: 'thanks' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      'tool call id "call:1" sent as call_1',
      'tool arguments are not a JSON object; sent as { value }',
    ]);
    expect(
      anthropicRequestSchema.safeParse({ system: result.system, messages: result.messages }).success,
    ).toBe(true);
  });

  it('starts with a user turn, sends base64 images and PDFs, fills empty turns', () => {
    const result = toAnthropicMessages([
      assistant('hello'),
      user([
        { type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQ', mediaType: 'image/jpeg' },
        { type: 'file', url: 'data:application/pdf;base64,JVBERi0=', mediaType: 'application/pdf' },
      ]),
      assistant(''),
      user('  '),
    ]);
    expect(result.system).toBeUndefined();
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '(conversation continued)' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: '(empty)' }] },
      { role: 'user', content: [{ type: 'text', text: '(empty)' }] },
    ]);
    expect(anthropicRequestSchema.safeParse({ messages: result.messages }).success).toBe(true);
  });
});
