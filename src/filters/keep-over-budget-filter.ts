import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { decision } from '../core/decision.js';
import { BudgetUnsatisfiableError } from '../core/errors.js';
import type { Message, Role } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { idsOf, pinnedPrefixLength } from './pinned-prefix.js';

/** Options for {@link KeepOverBudgetFilter}. */
export type KeepOverBudgetFilterOptions = {
  /** The budget filter to run (e.g. a `TokenBudgetFilter`). */
  readonly filter: ContextFilter;
  /** Roles whose leading run is kept. @default ['system'] */
  readonly pinnedRoles?: readonly Role[];
};

/** The keys of {@link KeepOverBudgetFilterOptions}, for `checkOptions`. @internal */
export const KEEP_OVER_BUDGET_FILTER_OPTION_KEYS = {
  filter: true,
  pinnedRoles: true,
} as const satisfies OptionKeys<KeepOverBudgetFilterOptions>;

/**
 * Runs a budget filter and, when it reports that even the pinned part does not fit
 * (`BudgetUnsatisfiableError`), sends the smallest request instead of failing: the pinned prefix and
 * the current user message (the last message, when it is a user message), with every other message
 * dropped in one `message-drop` decision. This is `onOverBudget: 'keep'`: the caller chose to send
 * an over-budget request rather than none.
 */
export class KeepOverBudgetFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #filter: ContextFilter;
  readonly #pinnedRoles: ReadonlySet<Role>;

  constructor(options: KeepOverBudgetFilterOptions) {
    checkOptions(options, {
      where: 'new KeepOverBudgetFilter options',
      known: KEEP_OVER_BUDGET_FILTER_OPTION_KEYS,
    });
    this.#filter = options.filter;
    this.id = options.filter.id;
    this.#pinnedRoles = new Set(options.pinnedRoles ?? ['system']);
  }

  // biome-ignore lint/complexity/useMaxParams: the ContextFilter contract fixes this signature
  async apply(messages: readonly Message[], input: BuildInput, context: BuildContext): Promise<FilterResult> {
    try {
      return await this.#filter.apply(messages, input, context);
    } catch (error) {
      if (!(error instanceof BudgetUnsatisfiableError)) throw error;
      const pinnedEnd = pinnedPrefixLength(messages, this.#pinnedRoles);
      const last = messages.length > pinnedEnd ? messages[messages.length - 1] : undefined;
      const current = last?.role === 'user' ? [last] : [];
      const kept = [...messages.slice(0, pinnedEnd), ...current];
      const dropped = messages.slice(pinnedEnd, messages.length - current.length);
      if (dropped.length === 0) return { messages, decisions: [] };
      return {
        messages: kept,
        decisions: [
          decision('message-drop', {
            stage: this.id,
            reason: `${error.message} Sent anyway (onOverBudget: 'keep') with only the pinned messages and the current message.`,
            messageIds: idsOf(dropped),
            details: { budget: error.budget, required: error.required, pinnedTokens: error.pinnedTokens },
          }),
        ],
      };
    }
  }
}
