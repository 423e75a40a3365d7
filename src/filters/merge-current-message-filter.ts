import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { Decision } from '../core/decision.js';
import { decision } from '../core/decision.js';
import { type Message, sectionOf } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { mergeCarriedFields, mergeMessageContent } from './merge-messages.js';

/** Options for {@link MergeCurrentMessageFilter}. */
export type MergeCurrentMessageFilterOptions = {
  /** The filter id. @default 'merge-current-message' */
  readonly id?: string;
  /** The section of the current message. @default 'current-message' */
  readonly currentSection?: string;
};

/** The keys of {@link MergeCurrentMessageFilterOptions}, for `checkOptions`. @internal */
export const MERGE_CURRENT_MESSAGE_FILTER_OPTION_KEYS = {
  id: true,
  currentSection: true,
} as const satisfies OptionKeys<MergeCurrentMessageFilterOptions>;

/** Metadata key naming the message merged into the current one (also makes the merge happen once). */
export const MERGED_FROM_KEY = 'mergedFrom';

/**
 * nanobot's same-role rule: when the message right before the current message has the same
 * role (e.g. the history ends with a user message that got no answer), the two become one message:
 * a copy of the earlier message (its tool calls and reasoning kept) with the content merged by
 * `mergeContent` and the metadata merged with the current message winning, keeping the current
 * message's id and section and recording `metadata.mergedFrom` (so it merges once, like
 * nanobot, and a second run changes nothing). It also reports attached files the current-message provider
 * skipped (`metadata.skippedMedia`) as `section-skip` decisions, since providers cannot emit
 * decisions themselves.
 */
export class MergeCurrentMessageFilter implements ContextFilter {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly onError = 'skip';
  readonly currentSection: string;

  constructor(options: MergeCurrentMessageFilterOptions = {}) {
    checkOptions(options, {
      where: 'new MergeCurrentMessageFilter options',
      known: MERGE_CURRENT_MESSAGE_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'merge-current-message';
    this.currentSection = options.currentSection ?? 'current-message';
  }

  apply(messages: readonly Message[]): FilterResult {
    const index = messages.findLastIndex((message) => sectionOf(message) === this.currentSection);
    const current = messages[index];
    if (current === undefined) return { messages, decisions: [] };
    const decisions = this.#skippedMedia(current);
    const previous = messages[index - 1];
    const isMergeable = current.role === 'user' || current.role === 'assistant';
    const isMerged = current.metadata?.[MERGED_FROM_KEY] !== undefined;
    if (previous === undefined || previous.role !== current.role || !isMergeable || isMerged) {
      return { messages, decisions };
    }
    // nanobot merges into a copy of the previous message, so its tool calls and reasoning stay
    const merged: Message = {
      ...previous,
      id: current.id,
      content: mergeMessageContent(previous, current),
      ...mergeCarriedFields(previous, current),
      metadata: { ...previous.metadata, ...current.metadata, [MERGED_FROM_KEY]: previous.id },
    };
    // One copy: the list up to the current message, the merged one over the previous, then the rest.
    const next = messages.slice(0, index);
    next[index - 1] = merged;
    for (let after = index + 1; after < messages.length; after += 1) next.push(messages[after] as Message);
    decisions.push(
      decision('message-merge', {
        stage: this.id,
        reason: `The message before the current one is also a ${current.role} message; merged them into one.`,
        messageIds: [previous.id, current.id],
      }),
    );
    return { messages: next, decisions };
  }

  #skippedMedia(current: Message): Decision[] {
    const skipped = current.metadata?.['skippedMedia'];
    if (!Array.isArray(skipped)) return [];
    return skipped.map((entry: unknown) =>
      decision('section-skip', {
        stage: this.id,
        reason: `Attached file ${String(Reflect.get(Object(entry), 'path'))} was left out (${String(Reflect.get(Object(entry), 'reason'))}).`,
        messageIds: [current.id],
        details: { media: entry },
      }),
    );
  }
}
