import type { Message } from '../core/message.js';

/**
 * The metadata key that marks a tool message as a failed call (`metadata.isError: true`): the
 * adapters send it as Anthropic `is_error`, AI SDK `error-text`, and set it when they read one.
 */
export const TOOL_ERROR_KEY = 'isError';

/**
 * True when a tool message is a failed call: its `output` is `error-text` or `error-json`, or (as
 * written before message format 2) `metadata.isError` is true.
 */
export function isToolError(message: Message): boolean {
  return (
    message.output === 'error-text' ||
    message.output === 'error-json' ||
    message.metadata?.[TOOL_ERROR_KEY] === true
  );
}
