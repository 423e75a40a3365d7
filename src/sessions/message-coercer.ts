import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';

/** What a coercer is told about the value it coerces. */
export type CoerceContext = {
  /** Where the value sits in the caller's input, for error messages (e.g. `input[2]`). */
  readonly path: string;
  /** Makes ids for messages that come without one. */
  readonly generateId: IdGenerator;
};

/**
 * Turns one untrusted value into a {@link Message}, or throws `ContextError` `INVALID_INPUT` naming
 * the bad field path. `MessageStore` runs it on every value before anything is written.
 */
export interface MessageCoercer {
  /** The contract version. */
  readonly specificationVersion: 'v1';
  /** `strict`, `lenient`, or your own. */
  readonly id: string;
  /** Coerces one value. */
  coerce(value: unknown, context: CoerceContext): Message;
}
