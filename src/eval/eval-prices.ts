/** A published input price with its prompt-cache multipliers. */
export type EvalPrice = {
  readonly provider: 'anthropic' | 'openai';
  readonly model: string;
  /** US dollars per million base input tokens. */
  readonly inputUsdPerMillionTokens: number;
  /** Cost of a cached read relative to the base price. */
  readonly cacheReadMultiplier: number;
  /** Cost of a 5-minute cache write relative to the base price (OpenAI: writes are free, 1). */
  readonly cacheWriteMultiplier: number;
  /** Where the figures come from and when they were taken. */
  readonly source: string;
};

/**
 * The prices the eval's dollar figures use: Claude Sonnet 4.5 ($3 per million input tokens, cache
 * reads 0.1×, 5-minute writes 1.25×) and GPT-5 ($1.25 per million input tokens, cached input 0.1×,
 * no write charge), as published on the vendors' pricing pages (anthropic.com/pricing,
 * platform.openai.com/docs/pricing) when these figures were taken in 2025. They were not re-checked
 * on the day of the run (the eval makes no network calls); pass your own to `runEval` to update them.
 */
export const EVAL_PRICES = Object.freeze({
  anthropic: Object.freeze({
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    inputUsdPerMillionTokens: 3,
    cacheReadMultiplier: 0.1,
    cacheWriteMultiplier: 1.25,
    source: 'anthropic.com/pricing (Claude Sonnet 4.5), as published in 2025',
  }),
  openai: Object.freeze({
    provider: 'openai',
    model: 'gpt-5',
    inputUsdPerMillionTokens: 1.25,
    cacheReadMultiplier: 0.1,
    cacheWriteMultiplier: 1,
    source: 'platform.openai.com/docs/pricing (GPT-5), as published in 2025',
  }),
}) satisfies Readonly<Record<'anthropic' | 'openai', EvalPrice>>;

/** The eval's price table (one entry per simulated provider). */
export type EvalPrices = { readonly anthropic: EvalPrice; readonly openai: EvalPrice };
