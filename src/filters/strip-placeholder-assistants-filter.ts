import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { DEFAULT_PLACEHOLDER_TEXTS } from './governor-constants.js';
import { PlaceholderTexts } from './placeholder-texts.js';
import { UnchangedListMemo } from './unchanged-list-memo.js';

/** Options for {@link StripPlaceholderAssistantsFilter}. */
export type StripPlaceholderAssistantsFilterOptions = {
  /** The stage id. @default 'strip-placeholder-assistants' */
  readonly id?: string;
  /** Contents (compared after trimming) that mark a placeholder. @default ['[Previous assistant message omitted.]'] */
  readonly placeholders?: readonly string[];
};

/** The keys of {@link StripPlaceholderAssistantsFilterOptions}, for `checkOptions`. @internal */
export const STRIP_PLACEHOLDER_ASSISTANTS_FILTER_OPTION_KEYS = {
  id: true,
  placeholders: true,
} as const satisfies OptionKeys<StripPlaceholderAssistantsFilterOptions>;

/**
 * Governor step 1: removes assistant messages whose string content is a placeholder (such as
 * `[Previous assistant message omitted.]`) unless they carry tool calls. List content never matches.
 * Consecutive same-role messages this leaves are for the role-alternation pass. A list derived from
 * the last one it left unchanged is checked only where it changed (`UnchangedListMemo`).
 */
export class StripPlaceholderAssistantsFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #placeholders: PlaceholderTexts;
  readonly #memo = new UnchangedListMemo();

  constructor(options: StripPlaceholderAssistantsFilterOptions = {}) {
    checkOptions(options, {
      where: 'new StripPlaceholderAssistantsFilter options',
      known: STRIP_PLACEHOLDER_ASSISTANTS_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'strip-placeholder-assistants';
    this.#placeholders = new PlaceholderTexts(options.placeholders ?? DEFAULT_PLACEHOLDER_TEXTS);
  }

  apply(messages: readonly Message[]): FilterResult {
    const isPlaceholder = (message: Message): boolean =>
      message.role === 'assistant' &&
      typeof message.content === 'string' &&
      (message.toolCalls?.length ?? 0) === 0 &&
      this.#placeholders.has(message.content);
    const changes = this.#memo.changesSince(messages);
    const unchanged = !(changes?.added ?? messages).some(isPlaceholder);
    this.#memo.remember(messages, unchanged);
    if (unchanged) return { messages, decisions: [] };
    const dropped = messages.filter(isPlaceholder);
    return {
      messages: messages.filter((message) => !isPlaceholder(message)),
      decisions: [
        decision('message-drop', {
          stage: this.id,
          reason: `removed ${dropped.length} placeholder assistant message(s)`,
          messageIds: dropped.map((message) => message.id),
        }),
      ],
    };
  }
}
