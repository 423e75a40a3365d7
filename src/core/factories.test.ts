import { describe, expect, it } from 'vitest';
import { ContextError } from './errors.js';
import { msg, tool } from './factories.js';

describe('message factories', () => {
  it('are one namespace object that does not shadow the AI SDK names', () => {
    const call = { id: 'call_1', name: 'run_tests', arguments: { pattern: 'x' } };
    const messages = [
      msg.system('rules', { id: 's' }),
      msg.user('hi', { id: 'u' }),
      msg.assistant('', { id: 'a', toolCalls: [call] }),
      msg.tool('ok', { id: 't', toolCallId: 'call_1' }),
    ];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages[2]?.toolCalls?.[0]?.arguments).toBe('{"pattern":"x"}');
    expect(messages[3]?.toolCallId).toBe('call_1');
    expect(msg.human).toBe(msg.user);
    expect(msg.ai).toBe(msg.assistant);
  });

  it('rejects a tool message without the id of its call, saying how to pass it', () => {
    const missing = () => (tool as (content: string) => unknown)('x');
    expect(missing).toThrow(ContextError);
    expect(missing).toThrow(/options\.toolCallId.*tool\(text, \{ toolCallId: 'call_1' \}\)/);
    expect(() => tool('x', { toolCallId: 7 as unknown as string })).toThrow(/got number 7/);
  });
});
