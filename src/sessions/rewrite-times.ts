import { ContextError } from '../core/errors.js';
import type { SessionRewrite } from './session-store.js';

/** The times a rewrite records: `updatedAt` (given, else `now`) and the given `createdAt`, if any. */
export type RewriteTimes = {
  readonly createdAt: string | undefined;
  readonly updatedAt: string;
};

/**
 * The times {@link SessionRewrite} asks a store to record, `now` standing in for a missing
 * `updatedAt`. A given time is kept as written (nanobot writes local times without a zone).
 * @throws ContextError `INVALID_OPTIONS` when a given time is not an ISO 8601 date-time.
 */
export function rewriteTimes(rewrite: SessionRewrite, now: string): RewriteTimes {
  return {
    createdAt: checkedTime(rewrite.createdAt, 'createdAt'),
    updatedAt: checkedTime(rewrite.updatedAt, 'updatedAt') ?? now,
  };
}

function checkedTime(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `rewrite ${name} must be an ISO 8601 time such as 2026-03-01T09:03:05.000Z, got ${JSON.stringify(value)}.`,
  });
}
