import { isRecord } from '../core/is-record.js';
import type { Message } from '../core/message.js';
import { invalidInput } from './invalid-input.js';

const ROLES: readonly unknown[] = ['system', 'user', 'assistant', 'tool'];

/**
 * Checks the ctxloom messages a `to*` adapter is given (cheap: role, content shape, tool calls), so
 * plain JavaScript input that is not a message fails here with the path of the bad field instead of
 * becoming a broken request.
 * @throws ContextError `INVALID_INPUT` naming the path and what was received.
 */
export function checkMessages(messages: readonly Message[], format: string): void {
  if (!Array.isArray(messages)) {
    throw invalidInput({
      format,
      path: 'messages',
      expected: 'an array of ctxloom messages',
      received: messages,
    });
  }
  messages.forEach((message: unknown, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message))
      throw invalidInput({ format, path, expected: 'a ctxloom message', received: message });
    if (!ROLES.includes(message['role'])) {
      throw invalidInput({
        format,
        path: `${path}.role`,
        expected: 'one of system, user, assistant, tool',
        received: message['role'],
      });
    }
    const content = message['content'];
    if (typeof content !== 'string' && !Array.isArray(content)) {
      throw invalidInput({
        format,
        path: `${path}.content`,
        expected: 'a string or an array of parts',
        received: content,
      });
    }
    const calls = message['toolCalls'];
    if (calls !== undefined && !Array.isArray(calls)) {
      throw invalidInput({
        format,
        path: `${path}.toolCalls`,
        expected: 'an array of tool calls',
        received: calls,
      });
    }
  });
}
