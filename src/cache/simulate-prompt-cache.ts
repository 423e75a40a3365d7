import type { PromptCacheRequest } from '../adapters/prompt-cache-request.js';
import {
  ANTHROPIC_LOOKBACK_BLOCKS,
  anthropicMinCacheableTokens,
  DEFAULT_PROMPT_CACHE_MULTIPLIERS,
  type PromptCacheMultipliers,
} from '../adapters/prompt-cache-rules.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { anthropicCacheStep, type CacheEntry, type CacheStep } from './simulate-anthropic-cache.js';
import { openAICacheStep } from './simulate-openai-cache.js';

/** Options for {@link simulatePromptCache}. */
export type SimulatePromptCacheOptions = {
  /** Whose caching rules to apply. */
  readonly provider: 'anthropic' | 'openai';
  /** The model (Anthropic minimum lengths). @default each request's `model` */
  readonly model?: string;
  /** Anthropic: the minimum cacheable prefix. @default the model's documented minimum */
  readonly minTokens?: number;
  /** Anthropic: blocks checked before each breakpoint. @default 20 */
  readonly lookback?: number;
  /** OpenAI: `prompt_cache_retention` (`'24h'` keeps prefixes a day). @default 'in-memory' */
  readonly retention?: 'in-memory' | '24h';
  /** OpenAI: how long an in-memory prefix survives without use (OpenAI says 5 to 10 minutes). @default 300000 */
  readonly inMemoryRetentionMs?: number;
  /** Price multipliers against the base input price. @default the provider's documented ones */
  readonly multipliers?: Partial<PromptCacheMultipliers>;
  /** Requests before this index are warm-up and left out of `steadyStateHitRate`. @default 1 */
  readonly steadyStateFrom?: number;
};

/** The keys of {@link SimulatePromptCacheOptions}, for `checkOptions`. @internal */
export const SIMULATE_PROMPT_CACHE_OPTION_KEYS = {
  provider: true,
  model: true,
  minTokens: true,
  lookback: true,
  retention: true,
  inMemoryRetentionMs: true,
  multipliers: true,
  steadyStateFrom: true,
} as const satisfies OptionKeys<SimulatePromptCacheOptions>;

/** What one request read and wrote under the simulated rules. */
export type SimulatedCacheRequest = {
  readonly index: number;
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens: number;
  /** Input tokens neither read nor written. */
  readonly uncachedTokens: number;
  /** Share of the input read from the cache (0–1). */
  readonly hitRate: number;
  /** Input cost in base input tokens (a read costs 0.1 of one, a 5 min write 1.25, …). */
  readonly cost: number;
  /** Why the provider would refuse the request (empty when legal); a refused request caches nothing. */
  readonly problems: readonly string[];
};

/** The totals of a simulation. */
export type SimulatedCacheTotals = Omit<SimulatedCacheRequest, 'index' | 'problems'> & {
  /** Input cost without any cache (every token at the base price). */
  readonly costWithoutCache: number;
  /** `cost / costWithoutCache`: below 1 saves money. */
  readonly costRatio: number;
  /** Hit rate over the requests from `steadyStateFrom` on. */
  readonly steadyStateHitRate: number;
  /** Requests the provider would refuse. */
  readonly illegalRequests: number;
};

/** What {@link simulatePromptCache} returns. */
export type PromptCacheSimulation = {
  readonly provider: 'anthropic' | 'openai';
  readonly requests: readonly SimulatedCacheRequest[];
  readonly totals: SimulatedCacheTotals;
};

/**
 * Replays a sequence of requests (oldest first) under Anthropic's prompt-cache rules (explicit
 * breakpoints, 20-block lookback, minimum lengths, 5 min / 1 h lifetimes refreshed on use, at most
 * four breakpoints) or OpenAI's (automatic prefix caching from 1,024 tokens in 128-token steps,
 * in-memory or 24 h retention), using each request's `at` time for expiry. Reports what each request
 * read and wrote, its hit rate and cost, and the totals with the cost ratio against no cache.
 * @throws ContextError `INVALID_OPTIONS` for a negative lookback or minimum.
 * @example
 * const { totals } = simulatePromptCache(requests.map((r) => anthropicPromptCacheRequest(r)), { provider: 'anthropic' });
 */
export function simulatePromptCache(
  requests: readonly PromptCacheRequest[],
  options: SimulatePromptCacheOptions,
): PromptCacheSimulation {
  checkOptions(options, { where: 'simulatePromptCache options', known: SIMULATE_PROMPT_CACHE_OPTION_KEYS });
  const multipliers = { ...DEFAULT_PROMPT_CACHE_MULTIPLIERS[options.provider], ...options.multipliers };
  const lookback = options.lookback ?? ANTHROPIC_LOOKBACK_BLOCKS;
  if (lookback < 1 || (options.minTokens ?? 0) < 0) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `simulatePromptCache needs lookback ≥ 1 and minTokens ≥ 0 (got ${lookback} and ${options.minTokens}); e.g. { lookback: 20 }.`,
    });
  }
  const retentionMs =
    options.retention === '24h' ? 24 * 60 * 60_000 : (options.inMemoryRetentionMs ?? 5 * 60_000);
  const cache = new Map<string, CacheEntry>();
  let clock = 0;
  const simulated = requests.map((request, index): SimulatedCacheRequest => {
    clock = request.at ?? clock;
    const step: CacheStep =
      options.provider === 'anthropic'
        ? anthropicCacheStep(request, {
            at: clock,
            cache,
            rules: {
              lookback,
              minTokens: options.minTokens ?? anthropicMinCacheableTokens(options.model ?? request.model),
            },
          })
        : openAICacheStep(request, { at: clock, cache, retentionMs });
    return scored(step, { index, multipliers });
  });
  return {
    provider: options.provider,
    requests: simulated,
    totals: totalsOf(simulated, options.steadyStateFrom ?? 1),
  };
}

function scored(
  step: CacheStep,
  run: { readonly index: number; readonly multipliers: PromptCacheMultipliers },
): SimulatedCacheRequest {
  const { inputTokens, cacheReadTokens, cacheWrite5mTokens, cacheWrite1hTokens } = step;
  const cacheWriteTokens = cacheWrite5mTokens + cacheWrite1hTokens;
  const uncachedTokens = inputTokens - cacheReadTokens - cacheWriteTokens;
  const { read, write5m, write1h } = run.multipliers;
  return {
    index: run.index,
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    cacheWrite1hTokens,
    uncachedTokens,
    hitRate: inputTokens === 0 ? 0 : cacheReadTokens / inputTokens,
    cost:
      uncachedTokens + cacheReadTokens * read + cacheWrite5mTokens * write5m + cacheWrite1hTokens * write1h,
    problems: step.problems,
  };
}

function totalsOf(requests: readonly SimulatedCacheRequest[], steadyStateFrom: number): SimulatedCacheTotals {
  const sum = (pick: (request: SimulatedCacheRequest) => number, from = 0): number =>
    requests.slice(from).reduce((total, request) => total + pick(request), 0);
  const inputTokens = sum((request) => request.inputTokens);
  const cacheReadTokens = sum((request) => request.cacheReadTokens);
  const cost = sum((request) => request.cost);
  const steadyInput = sum((request) => request.inputTokens, steadyStateFrom);
  return {
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens: sum((request) => request.cacheWriteTokens),
    cacheWrite1hTokens: sum((request) => request.cacheWrite1hTokens),
    uncachedTokens: sum((request) => request.uncachedTokens),
    hitRate: inputTokens === 0 ? 0 : cacheReadTokens / inputTokens,
    cost,
    costWithoutCache: inputTokens,
    costRatio: inputTokens === 0 ? 1 : cost / inputTokens,
    steadyStateHitRate:
      steadyInput === 0 ? 0 : sum((request) => request.cacheReadTokens, steadyStateFrom) / steadyInput,
    illegalRequests: requests.filter((request) => request.problems.length > 0).length,
  };
}
