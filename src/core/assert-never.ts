import { ContextError } from './errors.js';

/**
 * Ends every `switch` over a discriminated union: the type checker proves it unreachable; at run time
 * (a value from outside the types) it throws `UNEXPECTED` naming the value.
 */
export function assertNever(value: never): never {
  throw new ContextError({ code: 'UNEXPECTED', message: `Unhandled case ${JSON.stringify(value)}.` });
}
