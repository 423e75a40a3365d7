/** Type tests: the provider compaction request fields fit the official SDKs' request types with no cast. */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import { anthropicCompactNow } from './anthropic-compact-now.js';
import { anthropicContextManagement } from './anthropic-context-management.js';
import { openaiContextManagement } from './openai-context-management.js';

describe('provider compaction requests fit the SDK types', () => {
  it('Anthropic threshold, clearing and on-demand fields spread into a beta Messages request', () => {
    const threshold: MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-5',
      max_tokens: 1,
      messages: [],
      ...anthropicContextManagement({ compact: true, clearToolUses: true }),
    };
    const now: MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-5',
      max_tokens: 1,
      messages: [],
      ...anthropicCompactNow(),
    };
    expectTypeOf(threshold).toExtend<MessageCreateParamsNonStreaming>();
    expectTypeOf(now).toExtend<MessageCreateParamsNonStreaming>();
  });

  it('OpenAI context_management spreads into a Responses request', () => {
    const request: ResponseCreateParamsNonStreaming = { model: 'gpt-6-astra', ...openaiContextManagement() };
    expectTypeOf(request).toExtend<ResponseCreateParamsNonStreaming>();
  });
});
