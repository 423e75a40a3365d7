import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Decision, decision } from '../core/decision.js';
import { ContextError } from '../core/errors.js';
import type { Message, Role } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { formatCount, idsOf, pinnedPrefixLength } from './pinned-prefix.js';
import { unitStartBefore } from './unit-walk.js';

/** Options for {@link MaxMessagesFilter}. */
export type MaxMessagesFilterOptions = {
  /**
   * The most messages kept AFTER the pinned prefix (the pinned prefix is not counted). An integer ≥ 1.
   */
  readonly maxMessages: number;
  /** Roles whose leading run is the pinned prefix, always kept. @default ['system'] */
  readonly pinnedRoles?: readonly Role[];
};

/** The keys of {@link MaxMessagesFilterOptions}, for `checkOptions`. @internal */
export const MAX_MESSAGES_FILTER_OPTION_KEYS = {
  maxMessages: true,
  pinnedRoles: true,
} as const satisfies OptionKeys<MaxMessagesFilterOptions>;

/** Defaults of {@link MaxMessagesFilterOptions}. */
export const DEFAULT_MAX_MESSAGES_FILTER = Object.freeze({ pinnedRoles: Object.freeze(['system'] as const) });

/**
 * Limits the message count: keeps the pinned prefix (the leading run of messages whose role is
 * pinned, default `system`) plus the newest `maxMessages` messages after it. N counts the tail only,
 * as in the seed: `maxMessages: 5` on `[sys1, sys2, u1, a1, u2, a2, u3, a3]` keeps
 * `[sys1, sys2, a1, u2, a2, u3, a3]`.
 *
 * Counting is by whole transactions (an assistant message with tool calls and its results): walking
 * from the newest, a transaction that does not fit whole is dropped whole and everything older goes
 * with it, so a call is never kept without its results or the reverse. Dropped messages are reported
 * in one `message-drop` decision. Returns the input array itself when nothing is dropped.
 *
 * @throws ContextError `INVALID_OPTIONS` when `maxMessages` is not an integer ≥ 1.
 * @example new MaxMessagesFilter({ maxMessages: 20 })
 */
export class MaxMessagesFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'max-messages';
  readonly maxMessages: number;
  readonly pinnedRoles: ReadonlySet<Role>;

  constructor(options: MaxMessagesFilterOptions) {
    checkOptions(options, { where: 'new MaxMessagesFilter options', known: MAX_MESSAGES_FILTER_OPTION_KEYS });
    if (!Number.isInteger(options.maxMessages) || options.maxMessages < 1) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `MaxMessagesFilter: maxMessages must be an integer ≥ 1, got ${String(options.maxMessages)}.`,
        details: { maxMessages: options.maxMessages },
      });
    }
    this.maxMessages = options.maxMessages;
    this.pinnedRoles = new Set(options.pinnedRoles ?? DEFAULT_MAX_MESSAGES_FILTER.pinnedRoles);
  }

  apply(messages: readonly Message[]): FilterResult {
    const pinnedEnd = pinnedPrefixLength(messages, this.pinnedRoles);
    if (messages.length - pinnedEnd <= this.maxMessages) return { messages, decisions: [] };
    let cut = messages.length;
    while (cut > pinnedEnd) {
      const start = unitStartBefore(messages, { end: cut, floor: pinnedEnd });
      if (messages.length - start > this.maxMessages) break;
      cut = start;
    }
    const kept = messages.length - cut;
    const dropped = messages.slice(pinnedEnd, cut);
    const decisions: Decision[] = [
      decision('message-drop', {
        stage: this.id,
        reason:
          `Kept the newest ${formatCount(kept)} of ${formatCount(messages.length - pinnedEnd)} messages ` +
          `after the pinned prefix (maxMessages ${formatCount(this.maxMessages)}); dropped ` +
          `${formatCount(dropped.length)} older messages in whole transactions.`,
        messageIds: idsOf(dropped),
        details: { maxMessages: this.maxMessages, pinned: pinnedEnd, kept, dropped: dropped.length },
      }),
    ];
    return { messages: [...messages.slice(0, pinnedEnd), ...messages.slice(cut)], decisions };
  }
}
