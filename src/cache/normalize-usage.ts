import { checkOptions, type OptionKeys } from '../core/check-options.js';
/** Prices per million tokens, in any currency (the cost comes out in the same one). */
export type UsagePriceTable = {
  /** Uncached input tokens. */
  readonly input: number;
  /** Output tokens (reasoning included). */
  readonly output: number;
  /** Cache reads. @default 0.1 × input */
  readonly cacheRead?: number;
  /** Cache writes (Anthropic 5 min). @default 1.25 × input */
  readonly cacheWrite?: number;
  /** Cache writes with the 1 h lifetime (Anthropic). @default 2 × input */
  readonly cacheWrite1h?: number;
};

/** Options for {@link normalizeUsage}. */
export type NormalizeUsageOptions = {
  /** Prices; when given, the result carries `cost`. */
  readonly prices?: UsagePriceTable;
};

/** The keys of {@link NormalizeUsageOptions}, for `checkOptions`. @internal */
export const NORMALIZE_USAGE_OPTION_KEYS = {
  prices: true,
} as const satisfies OptionKeys<NormalizeUsageOptions>;

/** One usage shape for every provider. */
export type NormalizedUsage = {
  /** Every input token: uncached + cache read + cache write. */
  readonly inputTokens: number;
  /** Input tokens billed at the base price. */
  readonly uncachedInputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Of the writes, those with the 1 h lifetime (Anthropic). */
  readonly cacheWrite1hTokens: number;
  readonly outputTokens: number;
  /** Of the output, reasoning tokens (when the provider reports them). */
  readonly reasoningTokens: number;
  /** `cacheReadTokens / inputTokens` (0 without input). */
  readonly hitRate: number;
  /** The cost from the price table, when one was given. */
  readonly cost?: number;
  /** Which shape was read. */
  readonly format:
    | 'anthropic'
    | 'openai-chat'
    | 'openai-responses'
    | 'ai-sdk'
    | 'ai-sdk-provider'
    | 'unknown';
};

type Fields = { readonly [key: string]: unknown };

/**
 * Reads a usage object of OpenAI chat completions (`prompt_tokens`, `prompt_tokens_details`),
 * the OpenAI Responses API (`input_tokens`, `input_tokens_details`), Anthropic (`input_tokens` plus
 * `cache_read_input_tokens`/`cache_creation_input_tokens`, which OpenAI counts inside the input and
 * Anthropic outside it), the AI SDK 6/7 `LanguageModelUsage` (`inputTokenDetails`) or the provider-level
 * usage (`inputTokens: { total, cacheRead, … }`), and returns one shape with the hit rate and, given
 * prices per million tokens, the cost. Missing fields count as 0.
 * @example normalizeUsage(response.usage, { prices: { input: 3, output: 15 } }).hitRate
 */
export function normalizeUsage(usage: unknown, options: NormalizeUsageOptions = {}): NormalizedUsage {
  checkOptions(options, { where: 'normalizeUsage options', known: NORMALIZE_USAGE_OPTION_KEYS });
  const fields: Fields = typeof usage === 'object' && usage !== null ? (usage as Fields) : {};
  const read = readShape(fields);
  const inputTokens = read.uncached + read.cacheRead + read.cacheWrite;
  const result: NormalizedUsage = {
    inputTokens,
    uncachedInputTokens: read.uncached,
    cacheReadTokens: read.cacheRead,
    cacheWriteTokens: read.cacheWrite,
    cacheWrite1hTokens: read.cacheWrite1h,
    outputTokens: read.output,
    reasoningTokens: read.reasoning,
    hitRate: inputTokens === 0 ? 0 : read.cacheRead / inputTokens,
    format: read.format,
  };
  return options.prices === undefined ? result : { ...result, cost: costOf(result, options.prices) };
}

type Shape = {
  readonly uncached: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly cacheWrite1h: number;
  readonly output: number;
  readonly reasoning: number;
  readonly format: NormalizedUsage['format'];
};

function readShape(fields: Fields): Shape {
  if ('cache_read_input_tokens' in fields || 'cache_creation_input_tokens' in fields)
    return anthropic(fields);
  if ('prompt_tokens' in fields) {
    const input = num(fields['prompt_tokens']);
    const cached = num(nested(fields, ['prompt_tokens_details', 'cached_tokens']));
    const reasoning = num(nested(fields, ['completion_tokens_details', 'reasoning_tokens']));
    return openAI({
      input,
      cached,
      output: num(fields['completion_tokens']),
      reasoning,
      format: 'openai-chat',
    });
  }
  if (typeof fields['inputTokens'] === 'object' && fields['inputTokens'] !== null)
    return aiSdkProvider(fields);
  if ('inputTokens' in fields || 'inputTokenDetails' in fields) return aiSdk(fields);
  if ('input_tokens' in fields) {
    if (!('input_tokens_details' in fields) && !('output_tokens_details' in fields)) return anthropic(fields);
    const input = num(fields['input_tokens']);
    const cached = num(nested(fields, ['input_tokens_details', 'cached_tokens']));
    const reasoning = num(nested(fields, ['output_tokens_details', 'reasoning_tokens']));
    return openAI({
      input,
      cached,
      output: num(fields['output_tokens']),
      reasoning,
      format: 'openai-responses',
    });
  }
  return {
    uncached: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    output: 0,
    reasoning: 0,
    format: 'unknown',
  };
}

function anthropic(fields: Fields): Shape {
  const cacheWrite = num(fields['cache_creation_input_tokens']);
  return {
    uncached: num(fields['input_tokens']),
    cacheRead: num(fields['cache_read_input_tokens']),
    cacheWrite,
    cacheWrite1h: Math.min(cacheWrite, num(nested(fields, ['cache_creation', 'ephemeral_1h_input_tokens']))),
    output: num(fields['output_tokens']),
    reasoning: 0,
    format: 'anthropic',
  };
}

function openAI(read: {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly reasoning: number;
  readonly format: Shape['format'];
}): Shape {
  const cacheRead = Math.min(read.cached, read.input);
  return {
    uncached: read.input - cacheRead,
    cacheRead,
    cacheWrite: 0,
    cacheWrite1h: 0,
    output: read.output,
    reasoning: read.reasoning,
    format: read.format,
  };
}

function aiSdk(fields: Fields): Shape {
  const total = num(fields['inputTokens']);
  const cacheRead = num(
    nested(fields, ['inputTokenDetails', 'cacheReadTokens']) ?? fields['cachedInputTokens'],
  );
  const cacheWrite = num(nested(fields, ['inputTokenDetails', 'cacheWriteTokens']));
  const noCache = nested(fields, ['inputTokenDetails', 'noCacheTokens']);
  const reasoning = num(
    nested(fields, ['outputTokenDetails', 'reasoningTokens']) ?? fields['reasoningTokens'],
  );
  return {
    uncached: typeof noCache === 'number' ? noCache : Math.max(0, total - cacheRead - cacheWrite),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    output: num(fields['outputTokens']),
    reasoning,
    format: 'ai-sdk',
  };
}

function aiSdkProvider(fields: Fields): Shape {
  const total = num(nested(fields, ['inputTokens', 'total']));
  const cacheRead = num(nested(fields, ['inputTokens', 'cacheRead']));
  const cacheWrite = num(nested(fields, ['inputTokens', 'cacheWrite']));
  const noCache = nested(fields, ['inputTokens', 'noCache']);
  return {
    uncached: typeof noCache === 'number' ? noCache : Math.max(0, total - cacheRead - cacheWrite),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    output: num(nested(fields, ['outputTokens', 'total'])),
    reasoning: num(nested(fields, ['outputTokens', 'reasoning'])),
    format: 'ai-sdk-provider',
  };
}

function costOf(usage: NormalizedUsage, prices: UsagePriceTable): number {
  const perToken = (price: number): number => price / 1_000_000;
  const write5m = usage.cacheWriteTokens - usage.cacheWrite1hTokens;
  return (
    usage.uncachedInputTokens * perToken(prices.input) +
    usage.cacheReadTokens * perToken(prices.cacheRead ?? prices.input * 0.1) +
    write5m * perToken(prices.cacheWrite ?? prices.input * 1.25) +
    usage.cacheWrite1hTokens * perToken(prices.cacheWrite1h ?? prices.input * 2) +
    usage.outputTokens * perToken(prices.output)
  );
}

function nested(fields: Fields, [outer, inner]: readonly [string, string]): unknown {
  const value = fields[outer];
  return typeof value === 'object' && value !== null ? (value as Fields)[inner] : undefined;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
