import { ContextError, type ContextErrorCode } from '../index.js';

/** What the CLI says for a file-system error code: the error code it maps to and the fix. */
const SYSTEM_ERRORS: Readonly<Record<string, { readonly code: ContextErrorCode; readonly what: string }>> = {
  ENOENT: { code: 'NOT_FOUND', what: 'does not exist; check the path' },
  ENOTDIR: { code: 'INVALID_INPUT', what: 'is not a folder (a file is in the way); check the path' },
  EISDIR: { code: 'INVALID_INPUT', what: 'is a folder where a file was expected; check the path' },
  EEXIST: { code: 'INVALID_INPUT', what: 'already exists as something else (a file?); pick another path' },
  EACCES: { code: 'INVALID_INPUT', what: 'cannot be accessed (permission denied); check its permissions' },
  EPERM: {
    code: 'INVALID_INPUT',
    what: 'cannot be changed (operation not permitted); check its permissions',
  },
};

/**
 * The error a command threw, as a `ContextError` the CLI can print: ctxloom errors as they are; a
 * file-system error (`ENOENT`, `EEXIST`, …) as what went wrong with which path and how to fix it;
 * anything else as `UNEXPECTED` with its message.
 */
export function toCliError(error: unknown): ContextError {
  if (ContextError.isInstance(error)) return error;
  const system = typeof error === 'object' && error !== null ? systemError(error) : undefined;
  if (system !== undefined) return system;
  const message = error instanceof Error ? error.message : String(error);
  return new ContextError({
    code: 'UNEXPECTED',
    message: `${message} (this is a bug or an error ctxloom does not know; rerun with --debug for the stack and report it)`,
    cause: error,
  });
}

function systemError(error: object): ContextError | undefined {
  const code = Reflect.get(error, 'code');
  const known = typeof code === 'string' ? SYSTEM_ERRORS[code] : undefined;
  if (known === undefined) return undefined;
  const target = Reflect.get(error, 'path');
  const subject = typeof target === 'string' ? target : 'A path';
  return new ContextError({ code: known.code, message: `${subject} ${known.what}.`, cause: error });
}
