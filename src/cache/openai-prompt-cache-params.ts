import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContentHash } from '../tokens/content-hash.js';

/** Options for {@link openAIPromptCacheParams}. */
export type OpenAIPromptCacheParamsOptions = {
  /** The session (conversation) key: requests of one session share a cache routing key. */
  readonly sessionKey: string;
  /** `prompt_cache_retention`: `'24h'` keeps cached prefixes up to a day (on models that support it). @default 'in-memory' (not sent) */
  readonly retention?: 'in-memory' | '24h';
  /** Prepended to the key (an app or tenant name). @default '' */
  readonly prefix?: string;
};

/** The keys of {@link OpenAIPromptCacheParamsOptions}, for `checkOptions`. @internal */
export const OPENAI_PROMPT_CACHE_PARAMS_OPTION_KEYS = {
  sessionKey: true,
  retention: true,
  prefix: true,
} as const satisfies OptionKeys<OpenAIPromptCacheParamsOptions>;

/** The prompt-cache fields of an OpenAI chat completions or Responses request. */
export type OpenAIPromptCacheParams = {
  readonly prompt_cache_key: string;
  readonly prompt_cache_retention?: '24h';
};

/** The longest key kept as it is; longer keys (or keys with other characters) are hashed. */
const MAX_KEY_LENGTH = 64;

/**
 * The `prompt_cache_key` (from the session key, so the requests of one conversation are routed to
 * the same cache) and `prompt_cache_retention` to spread into an OpenAI chat completions or Responses
 * request. A key longer than 64 characters or with characters outside `[A-Za-z0-9:_.-]` is sent as
 * a stable hash.
 * @example await client.chat.completions.create({ model, messages, ...openAIPromptCacheParams({ sessionKey }) });
 */
export function openAIPromptCacheParams(options: OpenAIPromptCacheParamsOptions): OpenAIPromptCacheParams {
  checkOptions(options, {
    where: 'openAIPromptCacheParams options',
    known: OPENAI_PROMPT_CACHE_PARAMS_OPTION_KEYS,
  });
  const raw = `${options.prefix ?? ''}${options.sessionKey}`;
  const key =
    raw.length <= MAX_KEY_LENGTH && /^[A-Za-z0-9:_.-]+$/.test(raw)
      ? raw
      : `ctxloom-${hexOf(new ContentHash().add(raw).digest())}`;
  return options.retention === '24h'
    ? { prompt_cache_key: key, prompt_cache_retention: '24h' }
    : { prompt_cache_key: key };
}

function hexOf(digest: string): string {
  return [...digest].map((char) => char.charCodeAt(0).toString(16).padStart(4, '0')).join('');
}
