import { describe, expect, it } from 'vitest';
import { openAIPromptCacheParams } from './openai-prompt-cache-params.js';

describe('openAIPromptCacheParams', () => {
  it('routes a session by its key and sends the 24h retention when asked', () => {
    expect(openAIPromptCacheParams({ sessionKey: 'cli:direct' })).toEqual({ prompt_cache_key: 'cli:direct' });
    expect(openAIPromptCacheParams({ sessionKey: 'cli:direct', retention: '24h', prefix: 'app-' })).toEqual({
      prompt_cache_key: 'app-cli:direct',
      prompt_cache_retention: '24h',
    });
  });

  it('hashes a key that is too long or has other characters, stably', () => {
    const long = openAIPromptCacheParams({ sessionKey: `telegram:${'9'.repeat(80)}` }).prompt_cache_key;
    expect(long).toMatch(/^ctxloom-[0-9a-f]{16}$/);
    expect(openAIPromptCacheParams({ sessionKey: `telegram:${'9'.repeat(80)}` }).prompt_cache_key).toBe(long);
    expect(openAIPromptCacheParams({ sessionKey: 'José García' }).prompt_cache_key).toMatch(/^ctxloom-/);
  });
});
