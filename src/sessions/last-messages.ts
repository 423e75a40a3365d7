import { SessionStoreError } from '../core/errors.js';
import type { SessionKeyContext } from './check-session-key.js';
import type { SessionRecord } from './session-store.js';

/**
 * How many of a session's newest messages a load returns (`lastMessages`; `Infinity` when not
 * given). Throws `INVALID_INPUT` for anything but a non-negative integer or `Infinity`.
 */
export function lastMessagesOf(value: number | undefined, where: SessionKeyContext): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && value >= 0)) return value;
  throw new SessionStoreError({
    code: 'INVALID_INPUT',
    ...where,
    message: `lastMessages must be a non-negative integer or Infinity, got ${String(value)}. Pass how many of the newest messages to load, or leave it out to load them all.`,
    details: { lastMessages: value },
  });
}

/** The index of the first of the newest `lastMessages` of `count` messages. */
export function firstIndexOf(count: number, lastMessages: number): number {
  return lastMessages >= count ? 0 : count - lastMessages;
}

/**
 * `record` (a load of every message, whose list no one changes) with only its newest `lastMessages`
 * messages: itself when that is all of them.
 */
export function newestOf<TRecord extends SessionRecord>(record: TRecord, lastMessages: number): TRecord {
  const firstIndex = firstIndexOf(record.messages.length, lastMessages);
  return firstIndex === 0 ? record : { ...record, messages: record.messages.slice(firstIndex), firstIndex };
}
