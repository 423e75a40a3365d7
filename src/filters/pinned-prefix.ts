import type { Message, Role } from '../core/message.js';

/**
 * The length of the pinned prefix: the leading run of messages whose role is in `pinnedRoles`, and
 * the provider's compaction block right after it (a message holding a `compaction` provider part:
 * it stands for the whole conversation before it, so trimming it would lose all of that).
 * A pinned-role message after the first non-pinned one is not pinned.
 * @internal
 */
export function pinnedPrefixLength(messages: readonly Message[], pinnedRoles: ReadonlySet<Role>): number {
  let end = 0;
  while (end < messages.length && pinnedRoles.has((messages[end] as Message).role)) end += 1;
  const next = messages[end];
  return next !== undefined && isProviderCompaction(next) ? end + 1 : end;
}

/**
 * True for a message holding a provider's compaction block or item (a `provider` part of kind
 * `compaction`) and no tool calls (pinning it never splits a transaction).
 */
export function isProviderCompaction(message: Message): boolean {
  return (
    (message.toolCalls?.length ?? 0) === 0 &&
    typeof message.content !== 'string' &&
    message.content.some((part) => part.type === 'provider' && part.kind === 'compaction')
  );
}

/** The ids of a run of messages, in order. @internal */
export function idsOf(messages: readonly Message[]): readonly string[] {
  return messages.map((message) => message.id);
}

/** Formats a token or message count for an error message: `9,120`. @internal */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
