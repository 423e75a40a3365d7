import { type PromptCacheRequest, prefixKeys, prefixTokens } from '../adapters/prompt-cache-request.js';
import { ANTHROPIC_MAX_BREAKPOINTS, ANTHROPIC_TTL_MS } from '../adapters/prompt-cache-rules.js';

/** A cache entry: a prefix fingerprint alive until `expiresAt`, refreshed on every read. */
export type CacheEntry = { expiresAt: number; readonly ttlMs: number };

/** What one request read, wrote (by lifetime) and why it was refused, if it was. */
export type CacheStep = {
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly problems: readonly string[];
};

/** The rules of one Anthropic simulation run. */
export type AnthropicRules = { readonly minTokens: number; readonly lookback: number };

/**
 * One request under Anthropic's rules: every breakpoint looks for the longest live entry at its own
 * position or up to `lookback` blocks before it; the longest hit is read (and refreshed); every
 * breakpoint past it whose prefix reaches the minimum length writes an entry with its lifetime. A
 * request with more than four breakpoints, or a 1 h breakpoint after a 5 min one, is refused.
 */
export function anthropicCacheStep(
  request: PromptCacheRequest,
  run: { readonly at: number; readonly cache: Map<string, CacheEntry>; readonly rules: AnthropicRules },
): CacheStep {
  const totals = prefixTokens(request);
  const inputTokens = totals.at(-1) ?? 0;
  const breakpoints = request.blocks.flatMap((block, index) =>
    block.cacheControl === undefined ? [] : [index],
  );
  const problems = legality(request, breakpoints);
  const none = { inputTokens, cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, problems };
  if (problems.length > 0 || breakpoints.length === 0) return none;
  const keys = prefixKeys(request);
  const live = (key: string | undefined): CacheEntry | undefined => {
    const entry = key === undefined ? undefined : run.cache.get(key);
    return entry !== undefined && entry.expiresAt >= run.at ? entry : undefined;
  };
  const readAt = longestRead(breakpoints, {
    lookback: run.rules.lookback,
    isLive: (index) => live(keys[index]) !== undefined,
  });
  const read = readAt === -1 ? 0 : (totals[readAt] ?? 0);
  const hit = live(keys[readAt]);
  if (hit !== undefined) hit.expiresAt = run.at + hit.ttlMs;
  const written = { '5m': 0, '1h': 0 };
  let covered = read;
  for (const breakpoint of breakpoints) {
    const total = totals[breakpoint] ?? 0;
    const key = keys[breakpoint];
    if (breakpoint <= readAt || total < run.rules.minTokens || key === undefined) continue;
    const ttl = request.blocks[breakpoint]?.cacheControl?.ttl ?? '5m';
    written[ttl] += total - covered;
    covered = total;
    run.cache.set(key, { expiresAt: run.at + ANTHROPIC_TTL_MS[ttl], ttlMs: ANTHROPIC_TTL_MS[ttl] });
  }
  return {
    ...none,
    cacheReadTokens: read,
    cacheWrite5mTokens: written['5m'],
    cacheWrite1hTokens: written['1h'],
  };
}

/**
 * The position of the longest live prefix a breakpoint reads: each looks at its own position and up
 * to `lookback` blocks before it; -1 when none is live.
 */
function longestRead(
  breakpoints: readonly number[],
  search: { readonly lookback: number; readonly isLive: (index: number) => boolean },
): number {
  let readAt = -1;
  for (const breakpoint of breakpoints) {
    const stop = Math.max(0, breakpoint - search.lookback + 1);
    for (let index = breakpoint; index >= stop && index > readAt; index -= 1) {
      if (!search.isLive(index)) continue;
      readAt = index;
      break;
    }
  }
  return readAt;
}

function legality(request: PromptCacheRequest, breakpoints: readonly number[]): string[] {
  const problems: string[] = [];
  if (breakpoints.length > ANTHROPIC_MAX_BREAKPOINTS) {
    problems.push(
      `A maximum of ${ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
    );
  }
  let seenShort = false;
  for (const index of breakpoints) {
    const ttl = request.blocks[index]?.cacheControl?.ttl ?? '5m';
    if (ttl === '5m') seenShort = true;
    else if (seenShort) {
      problems.push(
        `a ttl='1h' cache_control (block ${index}) comes after a ttl='5m' one; longer lifetimes must come first`,
      );
      break;
    }
  }
  return problems;
}
