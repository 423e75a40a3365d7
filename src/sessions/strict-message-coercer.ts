import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { safeParseMessage } from '../core/message-schema.js';
import type { CoerceContext, MessageCoercer } from './message-coercer.js';

/**
 * Accepts only valid messages: objects matching the `Message` schema (role-specific rules
 * included). A missing `id` is generated; anything else wrong is a `ContextError` `INVALID_INPUT`
 * naming the field path (`input[1].toolCalls[0].name: …`), and `MessageStore` then writes nothing.
 */
export class StrictMessageCoercer implements MessageCoercer {
  readonly specificationVersion = 'v1';
  readonly id = 'strict';

  coerce(value: unknown, context: CoerceContext): Message {
    const candidate =
      typeof value === 'object' && value !== null && !Array.isArray(value) && !('id' in value)
        ? { id: context.generateId(), ...value }
        : value;
    const result = safeParseMessage(candidate);
    if (result.success) return result.value;
    const details = result.issues.map((issue) =>
      issue.path === '(root)'
        ? `${context.path}: ${issue.message}`
        : `${context.path}.${issue.path}: ${issue.message}`,
    );
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `Invalid message at ${details.join('; ')}. Pass a Message (role, content, …) or use LenientMessageCoercer for loose input.`,
      details: { issues: result.issues, path: context.path },
    });
  }
}
