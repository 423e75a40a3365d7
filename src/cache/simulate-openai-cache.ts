import { type PromptCacheRequest, prefixKeys, prefixTokens } from '../adapters/prompt-cache-request.js';
import { OPENAI_CACHE_INCREMENT, OPENAI_MIN_CACHED_TOKENS } from '../adapters/prompt-cache-rules.js';
import type { CacheEntry, CacheStep } from './simulate-anthropic-cache.js';

/**
 * One request under OpenAI's rules: a prompt of 1,024 tokens or more reads the longest live prefix
 * it shares with an earlier request, counted as 1,024 tokens plus whole 128-token steps; then every
 * prefix of the prompt is kept (or refreshed) for the retention time. Writes cost nothing extra.
 */
export function openAICacheStep(
  request: PromptCacheRequest,
  run: { readonly at: number; readonly cache: Map<string, CacheEntry>; readonly retentionMs: number },
): CacheStep {
  const totals = prefixTokens(request);
  const keys = prefixKeys(request);
  const inputTokens = totals.at(-1) ?? 0;
  let matched = 0;
  for (let index = keys.length - 1; index >= 0; index -= 1) {
    const entry = run.cache.get(keys[index] ?? '');
    if (entry === undefined || entry.expiresAt < run.at) continue;
    matched = totals[index] ?? 0;
    break;
  }
  const cacheReadTokens =
    inputTokens < OPENAI_MIN_CACHED_TOKENS || matched < OPENAI_MIN_CACHED_TOKENS
      ? 0
      : OPENAI_MIN_CACHED_TOKENS +
        Math.floor((matched - OPENAI_MIN_CACHED_TOKENS) / OPENAI_CACHE_INCREMENT) * OPENAI_CACHE_INCREMENT;
  if (inputTokens >= OPENAI_MIN_CACHED_TOKENS) {
    for (const key of keys)
      run.cache.set(key, { expiresAt: run.at + run.retentionMs, ttlMs: run.retentionMs });
  }
  return { inputTokens, cacheReadTokens, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, problems: [] };
}
