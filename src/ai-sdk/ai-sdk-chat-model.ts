import type { LanguageModel, ToolSet } from 'ai';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ChatModel, ChatRequest, ChatResult, FinishReason } from '../llm/chat-model.js';
import { loadOptional } from '../sessions/load-optional.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

/** Options for {@link AiSdkChatModel}. */
export type AiSdkChatModelOptions = {
  /** Any AI SDK `LanguageModel` (e.g. from `@ai-sdk/openai-compatible`). */
  readonly model: LanguageModel;
  /** Retries done by the AI SDK itself. @default 2 */
  readonly maxRetries?: number;
};

/** The keys of {@link AiSdkChatModelOptions}, for `checkOptions`. @internal */
export const AI_SDK_CHAT_MODEL_OPTION_KEYS = {
  model: true,
  maxRetries: true,
} as const satisfies OptionKeys<AiSdkChatModelOptions>;

const REASONS: readonly FinishReason[] = ['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other'];

/**
 * A {@link ChatModel} that calls an AI SDK `LanguageModel` (AI SDK 6 or 7) through `generateText`
 * (the `ai` package is imported on first use). System messages go in `system`; tools are sent as
 * schemas without `execute`, so the SDK never runs them; tool calls come back in the result.
 */
export class AiSdkChatModel implements ChatModel {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #options: AiSdkChatModelOptions;

  constructor(options: AiSdkChatModelOptions) {
    checkOptions(options, { where: 'new AiSdkChatModel options', known: AI_SDK_CHAT_MODEL_OPTION_KEYS });
    this.#options = options;
    this.id =
      typeof options.model === 'string'
        ? `ai-sdk:${options.model}`
        : `ai-sdk:${options.model.provider}:${options.model.modelId}`;
  }

  async generate(request: ChatRequest): Promise<ChatResult> {
    const ai = await loadOptional('ai', () => import('ai'), 'AiSdkChatModel');
    const tools = toToolSet(ai.jsonSchema, request.tools ?? []);
    try {
      const converted = toAiSdkMessages(request.messages, { carryMetadata: false }).messages;
      // AI SDK 7 takes system messages only as `system`/`instructions`: hoist them (AI SDK 6 agrees).
      const system = converted.filter((message) => message.role === 'system');
      const result = await ai.generateText({
        model: this.#options.model,
        ...(system.length === 0 ? {} : { system }),
        messages: converted.filter((message) => message.role !== 'system'),
        maxRetries: this.#options.maxRetries ?? 2,
        ...(tools === undefined ? {} : { tools }),
        ...(tools === undefined || request.toolChoice === undefined
          ? {}
          : { toolChoice: request.toolChoice }),
        ...callSettings(request),
      });
      return toChatResult(result);
    } catch (error) {
      throw modelError(error, request.signal);
    }
  }
}

function callSettings(request: ChatRequest): {
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
} {
  return {
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
  };
}

function modelError(error: unknown, signal: AbortSignal | undefined): ContextError {
  if (signal?.aborted === true) {
    return new ContextError({ code: 'ABORTED', message: 'The model request was aborted.', cause: error });
  }
  if (ContextError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ContextError({
    code: 'MODEL_REQUEST_FAILED',
    message: `AI SDK model call failed: ${message}`,
    cause: error,
  });
}

type GenerateTextResult = Awaited<ReturnType<typeof import('ai')['generateText']>>;

function toChatResult(result: GenerateTextResult): ChatResult {
  const { inputTokens, outputTokens } = result.usage;
  const reasoning = result.reasoningText ?? '';
  return {
    text: result.text,
    finishReason: REASONS.find((candidate) => candidate === result.finishReason) ?? 'other',
    toolCalls: result.toolCalls.map((call) => ({
      id: call.toolCallId,
      name: call.toolName,
      arguments: JSON.stringify(call.input ?? {}),
    })),
    usage: {
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
    },
    ...(reasoning === '' ? {} : { reasoning }),
  };
}

function toToolSet(
  jsonSchema: typeof import('ai')['jsonSchema'],
  definitions: readonly ToolDefinition[],
): ToolSet | undefined {
  if (definitions.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const definition of definitions) {
    tools[definition.name] = {
      ...(definition.description === undefined ? {} : { description: definition.description }),
      inputSchema: jsonSchema(definition.parameters ?? { type: 'object', properties: {} }),
    };
  }
  return tools;
}
