import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Options for {@link planCacheAwareTrim}. */
export type PlanCacheAwareTrimOptions = {
  /** The tokens the messages may take (the high-water mark). */
  readonly budgetTokens: number;
  /** When over budget, cut until the kept part is at most this share of the budget. @default 0.5 */
  readonly lowWater?: number;
  /** Counts the messages. @default an `EstimatingTokenCounter` */
  readonly tokenCounter?: TokenCounter;
  /** Marks preferred cut points (a consolidation boundary, a summary). @default none */
  readonly isConsolidationPoint?: (message: Message, index: number) => boolean;
};

/** The keys of {@link PlanCacheAwareTrimOptions}, for `checkOptions`. @internal */
export const PLAN_CACHE_AWARE_TRIM_OPTION_KEYS = {
  budgetTokens: true,
  lowWater: true,
  tokenCounter: true,
  isConsolidationPoint: true,
} as const satisfies OptionKeys<PlanCacheAwareTrimOptions>;

/** What {@link planCacheAwareTrim} decided. */
export type CacheAwareTrimPlan = {
  /** Keep the messages from this index on. */
  readonly startIndex: number;
  readonly keptTokens: number;
  readonly droppedTokens: number;
  /** True when this last turn moved the start (the cached conversation prefix is given up now). */
  readonly movedThisTurn: boolean;
  /** Tokens of cached prefix that the move gives up (0 when the start did not move this turn). */
  readonly cachedPrefixTokensGivenUp: number;
  /** How many cuts the whole history has had (each one costs a cache rewrite). */
  readonly cuts: number;
  /** True when the start is a consolidation point. */
  readonly atConsolidationPoint: boolean;
};

/** Defaults of {@link PlanCacheAwareTrimOptions}. */
export const DEFAULT_CACHE_AWARE_TRIM = Object.freeze({ lowWater: 0.5 });

/**
 * Plans where a growing history starts so the kept prefix stays the same for many turns: walking the
 * history oldest first, whenever the kept part passes the budget the start moves forward to a user
 * message (a legal start), far enough that the kept part drops to the low-water mark, preferring a
 * consolidation point that still fits. The plan depends only on the messages, so appending a turn
 * never moves the start unless that turn overflows: the cached prefix is rewritten once per cut, not
 * once per turn. The last user message and what follows are never cut. Pure.
 * @throws ContextError `INVALID_OPTIONS` for a negative budget or a low-water mark outside (0, 1].
 */
export function planCacheAwareTrim(
  messages: readonly Message[],
  options: PlanCacheAwareTrimOptions,
): CacheAwareTrimPlan {
  const lowWater = checkedLowWater(options);
  const span = tokenSpans(messages, options.tokenCounter ?? new EstimatingTokenCounter());
  const total = span(0, messages.length);
  const starts = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const lastUser = starts.at(-1) ?? 0;
  const preferred = new Set(
    starts.filter((index) => options.isConsolidationPoint?.(messages[index] as Message, index) === true),
  );
  const high = options.budgetTokens;
  const low = high * lowWater;
  let start = 0;
  let cuts = 0;
  let startBeforeLastTurn = 0;
  let next = 0;
  for (let end = 1; end <= messages.length; end += 1) {
    if (end - 1 === lastUser) startBeforeLastTurn = start;
    if (span(start, end) <= high) continue;
    while (next < starts.length && (starts[next] ?? 0) <= start) next += 1;
    const chosen = cutTarget({ starts, from: next, end, lastUser, preferred, span, high, low });
    if (chosen > start) {
      start = chosen;
      cuts += 1;
    }
  }
  const movedThisTurn = start !== startBeforeLastTurn;
  return {
    startIndex: start,
    keptTokens: span(start, messages.length),
    droppedTokens: total - span(start, messages.length),
    movedThisTurn,
    cachedPrefixTokensGivenUp: movedThisTurn ? span(startBeforeLastTurn, lastUser) : 0,
    cuts,
    atConsolidationPoint: preferred.has(start),
  };
}

/** The tokens of `messages[from..to)`, from prefix sums counted once. */
function tokenSpans(
  messages: readonly Message[],
  counter: TokenCounter,
): (from: number, to: number) => number {
  const sums = [0];
  for (const message of messages) sums.push((sums.at(-1) ?? 0) + counter.countMessage(message));
  return (from, to) => (sums[to] ?? 0) - (sums[from] ?? 0);
}

/** The low-water mark, once the options are checked. @throws ContextError `INVALID_OPTIONS` */
function checkedLowWater(options: PlanCacheAwareTrimOptions): number {
  checkOptions(options, { where: 'planCacheAwareTrim options', known: PLAN_CACHE_AWARE_TRIM_OPTION_KEYS });
  const lowWater = options.lowWater ?? DEFAULT_CACHE_AWARE_TRIM.lowWater;
  if (!(options.budgetTokens >= 0) || !(lowWater > 0 && lowWater <= 1)) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `planCacheAwareTrim needs budgetTokens ≥ 0 and 0 < lowWater ≤ 1 (got ${options.budgetTokens} and ${lowWater}); e.g. { budgetTokens: 60000, lowWater: 0.5 }.`,
    });
  }
  return lowWater;
}

/**
 * Where to cut a window that overflows at `end`: the first user turn (from `from` on, not after the
 * last one) from which the rest fits the low-water mark, or an earlier consolidation point from which
 * it fits the budget; else the last turn start seen (the most that can go); -1 when there is none.
 */
function cutTarget(window: {
  readonly starts: readonly number[];
  readonly from: number;
  readonly end: number;
  readonly lastUser: number;
  readonly preferred: ReadonlySet<number>;
  readonly span: (from: number, to: number) => number;
  readonly high: number;
  readonly low: number;
}): number {
  const { starts, end, preferred, span } = window;
  let target = -1;
  let fallback = -1;
  for (let cursor = window.from; cursor < starts.length && (starts[cursor] ?? 0) < end; cursor += 1) {
    const candidate = starts[cursor] ?? 0;
    if (candidate > window.lastUser) break;
    fallback = candidate;
    if (preferred.has(candidate) && span(candidate, end) <= window.high) target = candidate;
    if (span(candidate, end) <= window.low) return target === -1 ? candidate : target;
  }
  return target !== -1 ? target : fallback;
}
