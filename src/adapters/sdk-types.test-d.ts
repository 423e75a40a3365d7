/**
 * Type tests: the adapters' output is assignable to the official SDKs' request types with no cast.
 * Checked by `tsc --noEmit` (npm run typecheck, in CI); vitest's typecheck mode runs it too.
 */
import type {
  MessageCreateParams,
  MessageParam,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ResponseCreateParams, ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import { fromAnthropicMessages } from './from-anthropic-messages.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { fromOpenAIResponsesInput } from './from-openai-responses-input.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';
import { toOpenAIResponsesInput } from './to-openai-responses-input.js';

describe('adapter output fits the official SDK types', () => {
  it('toOpenAIChatMessages gives ChatCompletionMessageParam[]', () => {
    const { messages } = toOpenAIChatMessages([], { origins: fromOpenAIChatMessages([]).origins });
    expectTypeOf(messages).toExtend<ChatCompletionMessageParam[]>();
    const request: ChatCompletionCreateParams = { model: 'gpt-5', messages };
    expectTypeOf(request.messages).toEqualTypeOf<ChatCompletionMessageParam[]>();
  });

  it('toAnthropicMessages gives MessageCreateParams system, messages and tools', () => {
    const result = toAnthropicMessages([], {
      origins: fromAnthropicMessages({ messages: [] }).origins,
      tools: [],
    });
    expectTypeOf(result.messages).toExtend<MessageParam[]>();
    expectTypeOf(result.tools).toExtend<ToolUnion[] | undefined>();
    expectTypeOf(result.system).toExtend<string | TextBlockParam[] | undefined>();
    const request: MessageCreateParams = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: result.messages,
      ...(result.system === undefined ? {} : { system: result.system }),
      ...(result.tools === undefined ? {} : { tools: result.tools }),
    };
    expectTypeOf(request.messages).toEqualTypeOf<MessageParam[]>();
  });

  it('toOpenAIResponsesInput gives ResponseInputItem[]', () => {
    const { items } = toOpenAIResponsesInput([], { origins: fromOpenAIResponsesInput([]).origins });
    expectTypeOf(items).toExtend<ResponseInputItem[]>();
    const request: ResponseCreateParams = { model: 'gpt-5', input: items };
    expectTypeOf(request.input).toExtend<string | ResponseInputItem[] | undefined>();
  });
});
