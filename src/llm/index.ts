/**
 * @module ctxloom/llm
 * The ChatModel contract for the model calls ctxloom itself makes (consolidation, the memory writer),
 * its typed failures and an OpenAI-compatible HTTP client (the bridge to AI SDK language models,
 * `AiSdkChatModel`, is in `ctxloom/ai-sdk`).
 */
export type { ChatModel, ChatRequest, ChatResult, ChatUsage, FinishReason } from './chat-model.js';
export {
  ChatModelError,
  type ChatModelErrorOptions,
  type ModelFailureKind,
  type ModelFailureReason,
} from './chat-model-error.js';
export {
  DEFAULT_OPENAI_COMPATIBLE_CHAT_MODEL,
  OpenAICompatibleChatModel,
  type OpenAICompatibleChatModelOptions,
} from './openai-compatible-chat-model.js';
export { failureKindForStatus, toChatModelError } from './to-chat-model-error.js';
