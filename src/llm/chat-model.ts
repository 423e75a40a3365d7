import type { Message, ToolCall } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';

/**
 * Why the model stopped. Only `stop` is a normal end: `length` (cut at the output limit),
 * `content-filter`, `error`, `other` (a reason ctxloom does not know) and `unknown` (the provider
 * reported none) replies are never used as summaries or memory.
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'tool-calls'
  | 'content-filter'
  | 'error'
  | 'other'
  | 'unknown';

/** One request to a {@link ChatModel}. */
export type ChatRequest = {
  /** The conversation to send (system prompt included). */
  readonly messages: readonly Message[];
  /** Tool definitions sent with the request (for prompt-cache reuse even when no call is wanted). */
  readonly tools?: readonly ToolDefinition[];
  /** Whether the model may call tools. @default 'auto' when tools are given */
  readonly toolChoice?: 'auto' | 'none' | 'required';
  /** Cap on generated tokens. @default the provider's default */
  readonly maxOutputTokens?: number;
  /** Sampling temperature. @default the provider's default */
  readonly temperature?: number;
  /** Aborts the request (throws `ABORTED`). */
  readonly signal?: AbortSignal;
};

/** Token usage reported by the provider (absent when it reports none). */
export type ChatUsage = { readonly inputTokens?: number; readonly outputTokens?: number };

/** A model's reply. */
export type ChatResult = {
  /** The reply text (`''` when there is none). */
  readonly text: string;
  /** Why the model stopped. */
  readonly finishReason: FinishReason;
  /** The provider's own finish reason text, when it sent one (e.g. `content_filter`, `eos`). */
  readonly rawFinishReason?: string;
  /** Tool calls in the reply (empty when none). */
  readonly toolCalls: readonly ToolCall[];
  /** Token usage. */
  readonly usage: ChatUsage;
  /** Reasoning text, when the provider returns it separately. */
  readonly reasoning?: string;
};

/**
 * The model calls ctxloom itself makes (consolidation, the memory writer). Implementations:
 * `OpenAICompatibleChatModel` (any OpenAI-compatible HTTP endpoint) and `AiSdkChatModel` (any AI SDK
 * `LanguageModel`). A failed request throws a {@link ChatModelError} (`MODEL_REQUEST_FAILED`) whose
 * `kind` says whether it is `configuration` (fix the setup; retrying will not help) or `transient`
 * (retries ran out; may work later), or `ABORTED`. Anything else an implementation throws is
 * classified by `toChatModelError`. A reply is returned as it is; callers judge its usability.
 */
export interface ChatModel {
  /** The contract version. */
  readonly specificationVersion: 'v1';
  /** `provider:model`, e.g. `openai-compatible:gpt-4o-mini`. */
  readonly id: string;
  /** Sends one request and resolves to the reply. */
  generate(request: ChatRequest): Promise<ChatResult>;
}
