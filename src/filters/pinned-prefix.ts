import type { Message, Role } from '../core/message.js';

/**
 * The length of the pinned prefix: the leading run of messages whose role is in `pinnedRoles`.
 * A pinned-role message after the first non-pinned one is not pinned.
 * @internal
 */
export function pinnedPrefixLength(messages: readonly Message[], pinnedRoles: ReadonlySet<Role>): number {
  let end = 0;
  while (end < messages.length && pinnedRoles.has((messages[end] as Message).role)) end += 1;
  return end;
}

/** The ids of a run of messages, in order. @internal */
export function idsOf(messages: readonly Message[]): readonly string[] {
  return messages.map((message) => message.id);
}

/** Formats a token or message count for an error message: `9,120`. @internal */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
