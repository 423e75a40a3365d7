import { invalidInput } from '../adapters/invalid-input.js';
import { type AiSdkMessageLike, fieldOf } from './ai-sdk-message-like.js';

const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

/**
 * Checks that a value is an AI SDK message ctxloom can read: an object with a known role and string or
 * part-array content (tool messages: parts), each part an object with a string `type`.
 * @throws ContextError `INVALID_INPUT` naming the path of the bad field and what was received.
 */
export function checkAiSdkMessage(
  raw: unknown,
  at: { readonly index: number; readonly format: string },
): AiSdkMessageLike {
  const path = `messages[${at.index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalidInput({ format: at.format, path, expected: 'a message object', received: raw });
  }
  const role = fieldOf(raw, 'role');
  if (!ROLES.some((known) => known === role)) {
    throw invalidInput({
      format: at.format,
      path: `${path}.role`,
      expected: 'one of system, user, assistant, tool',
      received: role,
    });
  }
  const content = fieldOf(raw, 'content');
  const isParts = Array.isArray(content);
  if (!(isParts || (typeof content === 'string' && role !== 'tool'))) {
    throw invalidInput({
      format: at.format,
      path: `${path}.content`,
      expected: role === 'tool' ? 'an array of tool-result parts' : 'a string or an array of parts',
      received: content,
    });
  }
  if (isParts) {
    content.forEach((part: unknown, position) => {
      if (typeof part !== 'object' || part === null || typeof fieldOf(part, 'type') !== 'string') {
        throw invalidInput({
          format: at.format,
          path: `${path}.content[${position}]`,
          expected: 'a part object with a string type',
          received: part,
        });
      }
    });
  }
  // Checked above: a known role, and string or part-array content.
  return raw as AiSdkMessageLike;
}
