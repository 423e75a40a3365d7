import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { type PlanCacheAwareTrimOptions, planCacheAwareTrim } from './plan-cache-aware-trim.js';

/** Options for {@link CacheAwareTrimFilter}. */
export type CacheAwareTrimFilterOptions = Pick<
  PlanCacheAwareTrimOptions,
  'lowWater' | 'isConsolidationPoint'
> & {
  /** The input budget of the whole request (messages + tools), as the budget filter after it uses. */
  readonly maxTokens: number;
  /** The stage id. @default 'cache-aware-trim' */
  readonly id?: string;
};

/** The keys of {@link CacheAwareTrimFilterOptions}, for `checkOptions`. @internal */
export const CACHE_AWARE_TRIM_FILTER_OPTION_KEYS = {
  maxTokens: true,
  id: true,
  lowWater: true,
  isConsolidationPoint: true,
} as const satisfies OptionKeys<CacheAwareTrimFilterOptions>;

/**
 * Trims the conversation (everything after the leading system messages) with
 * {@link planCacheAwareTrim}: cuts in steps to a low-water mark at legal user-message starts, so the
 * cached prefix stays put for many turns instead of moving one message per turn. Put it before the
 * budget step (which then finds nothing to do). Each cut is a `message-drop` decision that says how
 * many tokens of cached prefix it gives up. Keeps no state: the cut follows from the history.
 */
export class CacheAwareTrimFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  /** Its cut points are walked from the history's start, so no provider may leave old messages out. */
  readonly readsWholeHistory = true;
  readonly #options: CacheAwareTrimFilterOptions;

  constructor(options: CacheAwareTrimFilterOptions) {
    checkOptions(options, {
      where: 'new CacheAwareTrimFilter options',
      known: CACHE_AWARE_TRIM_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'cache-aware-trim';
    this.#options = options;
  }

  apply(messages: readonly Message[], input: BuildInput, context: BuildContext): FilterResult {
    const head = messages.findIndex((message) => message.role !== 'system');
    if (head === -1) return { messages, decisions: [] };
    const counter = context.tokenCounter;
    const pinned = counter.countMessages(messages.slice(0, head)) + counter.countTools(input.tools ?? []);
    const conversation = messages.slice(head);
    const plan = planCacheAwareTrim(conversation, {
      budgetTokens: Math.max(0, this.#options.maxTokens - pinned),
      tokenCounter: counter,
      ...(this.#options.lowWater === undefined ? {} : { lowWater: this.#options.lowWater }),
      ...(this.#options.isConsolidationPoint === undefined
        ? {}
        : { isConsolidationPoint: this.#options.isConsolidationPoint }),
    });
    if (plan.startIndex === 0) return { messages, decisions: [] };
    const dropped = conversation.slice(0, plan.startIndex);
    const reason = plan.movedThisTurn
      ? `history cut to the low-water mark at a user turn (${plan.cuts} cut(s) so far); ${plan.cachedPrefixTokensGivenUp} tokens of cached prefix given up`
      : `history start kept where the last cut put it (${plan.cuts} cut(s) so far), so the cached prefix stays the same`;
    return {
      messages: [...messages.slice(0, head), ...conversation.slice(plan.startIndex)],
      decisions: [
        decision('message-drop', {
          stage: this.id,
          reason,
          messageIds: dropped.map((message) => message.id),
          tokensBefore: plan.keptTokens + plan.droppedTokens,
          tokensAfter: plan.keptTokens,
          details: {
            cachedPrefixTokensGivenUp: plan.cachedPrefixTokensGivenUp,
            movedThisTurn: plan.movedThisTurn,
            atConsolidationPoint: plan.atConsolidationPoint,
          },
        }),
      ],
    };
  }
}

/**
 * Adds a {@link CacheAwareTrimFilter} to a pipeline's options (e.g. `agentPresetOptions(...)`), just
 * before its history snip or budget step (`snip-history`, `token-budget`), else at the end.
 * @example new ContextBuilder(withCacheAwareTrim(agentPresetOptions(options), { maxTokens: 120_000 }))
 */
export function withCacheAwareTrim(
  pipeline: ContextPipelineOptions,
  options: CacheAwareTrimFilterOptions,
): ContextPipelineOptions {
  const filters = pipeline.filters ?? [];
  const at = filters.findIndex((filter) => filter.id === 'snip-history' || filter.id === 'token-budget');
  const position = at === -1 ? filters.length : at;
  return {
    ...pipeline,
    filters: [...filters.slice(0, position), new CacheAwareTrimFilter(options), ...filters.slice(position)],
  };
}
