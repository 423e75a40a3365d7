import { describe, expect, it } from 'vitest';
import { normalizeUsage } from './normalize-usage.js';

describe('normalizeUsage', () => {
  it('reads OpenAI chat completions usage (cached tokens inside prompt_tokens)', () => {
    const usage = {
      prompt_tokens: 2_006,
      completion_tokens: 300,
      total_tokens: 2_306,
      prompt_tokens_details: { cached_tokens: 1_920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 128 },
    };
    expect(normalizeUsage(usage)).toEqual({
      inputTokens: 2_006,
      uncachedInputTokens: 86,
      cacheReadTokens: 1_920,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 300,
      reasoningTokens: 128,
      hitRate: 1_920 / 2_006,
      format: 'openai-chat',
    });
  });

  it('reads OpenAI Responses usage', () => {
    const usage = {
      input_tokens: 5_000,
      input_tokens_details: { cached_tokens: 4_096 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 5_050,
    };
    expect(normalizeUsage(usage)).toMatchObject({
      inputTokens: 5_000,
      cacheReadTokens: 4_096,
      reasoningTokens: 10,
      format: 'openai-responses',
    });
  });

  it('reads Anthropic usage (cache reads and writes outside input_tokens) and prices it', () => {
    const usage = {
      input_tokens: 50,
      cache_read_input_tokens: 10_000,
      cache_creation_input_tokens: 2_000,
      cache_creation: { ephemeral_5m_input_tokens: 1_500, ephemeral_1h_input_tokens: 500 },
      output_tokens: 400,
    };
    const normalized = normalizeUsage(usage, { prices: { input: 3, output: 15 } });
    expect(normalized).toMatchObject({
      inputTokens: 12_050,
      uncachedInputTokens: 50,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 2_000,
      cacheWrite1hTokens: 500,
      format: 'anthropic',
    });
    // 50×3 + 10,000×0.3 + 1,500×3.75 + 500×6 + 400×15, per million.
    expect(normalized.cost).toBeCloseTo((150 + 3_000 + 5_625 + 3_000 + 6_000) / 1_000_000);
  });

  it('reads the AI SDK 6/7 usage and the provider-level usage', () => {
    const aiSdk = {
      inputTokens: 12_050,
      inputTokenDetails: { noCacheTokens: 50, cacheReadTokens: 10_000, cacheWriteTokens: 2_000 },
      outputTokens: 400,
      outputTokenDetails: { textTokens: 300, reasoningTokens: 100 },
      totalTokens: 12_450,
    };
    expect(normalizeUsage(aiSdk)).toMatchObject({
      inputTokens: 12_050,
      uncachedInputTokens: 50,
      reasoningTokens: 100,
      format: 'ai-sdk',
    });
    const provider = {
      inputTokens: { total: 12_050, noCache: 50, cacheRead: 10_000, cacheWrite: 2_000 },
      outputTokens: { total: 400, text: 300, reasoning: 100 },
    };
    expect(normalizeUsage(provider)).toMatchObject({
      inputTokens: 12_050,
      cacheReadTokens: 10_000,
      format: 'ai-sdk-provider',
    });
  });

  it('counts missing or malformed fields as 0', () => {
    expect(normalizeUsage(undefined)).toMatchObject({ inputTokens: 0, hitRate: 0, format: 'unknown' });
    expect(normalizeUsage({ prompt_tokens: 'x', completion_tokens: -3 })).toMatchObject({
      inputTokens: 0,
      outputTokens: 0,
    });
  });
});
