import { ContextError } from '../core/errors.js';

/** Where a foreign value failed validation, for {@link invalidInput}. */
export type InvalidInputOptions = {
  /** The format being read, as users name it: `OpenAI chat`, `Anthropic`, `AI SDK`, `OpenAI Responses`. */
  readonly format: string;
  /** The path of the bad field, e.g. `messages[3].content[0].type`. */
  readonly path: string;
  /** What the field must be, e.g. `a string or an array of content parts`. */
  readonly expected: string;
  /** What was received. */
  readonly received: unknown;
};

/**
 * Makes the `INVALID_INPUT` error a `from*` adapter throws for foreign input it cannot read: it names
 * the path of the bad field, what it must be, and what was received (type and value).
 */
export function invalidInput(options: InvalidInputOptions): ContextError {
  const received = describeReceived(options.received);
  return new ContextError({
    code: 'INVALID_INPUT',
    message: `Invalid ${options.format} input at ${options.path}: expected ${options.expected}, received ${received}.`,
    details: { format: options.format, path: options.path, expected: options.expected, received },
  });
}

/** A short description of a value: `42 (number)`, `"usr" (string)`, `null`, `an array of 3`. */
export function describeReceived(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (undefined)';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `${JSON.stringify(shown)} (string)`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value).slice(0, 5);
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.join(', ')}`;
  }
  return `${String(value)} (${typeof value})`;
}
