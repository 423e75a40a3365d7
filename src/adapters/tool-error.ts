import type { Message } from '../core/message.js';

/**
 * The metadata key that marks a tool message as a failed call (`metadata.isError: true`): the
 * adapters send it as Anthropic `is_error`, AI SDK `error-text`, and set it when they read one.
 */
export const TOOL_ERROR_KEY = 'isError';

/** True when a tool message is marked as a failed call (`metadata.isError`). */
export function isToolError(message: Message): boolean {
  return message.metadata?.[TOOL_ERROR_KEY] === true;
}
