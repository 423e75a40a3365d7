/** The most `cache_control` breakpoints one Anthropic request may carry. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/** How many blocks before a breakpoint Anthropic checks for an earlier cache entry. */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

/** Cache lifetimes in milliseconds: Anthropic's `5m` and `1h`, refreshed on every read. */
export const ANTHROPIC_TTL_MS = Object.freeze({ '5m': 5 * 60_000, '1h': 60 * 60_000 });

/** OpenAI caches prompts from this many tokens. */
export const OPENAI_MIN_CACHED_TOKENS = 1_024;

/** OpenAI's cached token counts grow in steps of this many tokens after the first 1,024. */
export const OPENAI_CACHE_INCREMENT = 128;

/**
 * Price multipliers of cached input relative to the base input price, by provider. Anthropic: writes
 * 1.25× (5 min) or 2× (1 h), reads 0.1×. OpenAI: writes free, reads 0.1× for the GPT-5 family (0.25×
 * GPT-4.1, 0.5× GPT-4o: pass `readMultiplier`).
 */
export type PromptCacheMultipliers = {
  /** Cost of a cached token read. */
  readonly read: number;
  /** Cost of a token written with the 5 minute lifetime (Anthropic). */
  readonly write5m: number;
  /** Cost of a token written with the 1 hour lifetime (Anthropic). */
  readonly write1h: number;
};

/** Default multipliers per provider. */
export const DEFAULT_PROMPT_CACHE_MULTIPLIERS = Object.freeze({
  anthropic: Object.freeze({ read: 0.1, write5m: 1.25, write1h: 2 }),
  openai: Object.freeze({ read: 0.1, write5m: 1, write1h: 1 }),
}) satisfies Readonly<Record<'anthropic' | 'openai', PromptCacheMultipliers>>;

/** Minimum cacheable prompt lengths by Claude model family, longest pattern first. */
const ANTHROPIC_MINIMUMS: readonly (readonly [RegExp, number])[] = [
  [/opus-4-[5-9]|opus-4\.[5-9]/, 4_096],
  [/haiku-4-5|haiku-4\.5/, 4_096],
  [/sonnet-4-6|sonnet-4\.6/, 2_048],
  [/haiku/, 2_048],
];

/** Anthropic's default minimum (Sonnet and Opus up to 4.1, Sonnet 4.5). */
export const ANTHROPIC_DEFAULT_MIN_TOKENS = 1_024;

/**
 * The minimum cacheable prefix of a Claude model: 4,096 tokens for Opus 4.5+ and Haiku 4.5, 2,048
 * for Sonnet 4.6 and Haiku 3/3.5, 1,024 for the other Sonnet and Opus models (and unknown names).
 */
export function anthropicMinCacheableTokens(model: string | undefined): number {
  const name = (model ?? '').toLowerCase();
  for (const [pattern, minimum] of ANTHROPIC_MINIMUMS) if (pattern.test(name)) return minimum;
  return ANTHROPIC_DEFAULT_MIN_TOKENS;
}
