/**
 * @module ctxloom/llm
 * The ChatModel contract for the model calls ctxloom itself makes (consolidation, the memory writer),
 * an OpenAI-compatible HTTP client and a bridge to AI SDK language models.
 */
export { AiSdkChatModel, type AiSdkChatModelOptions } from './ai-sdk-chat-model.js';
export type { ChatModel, ChatRequest, ChatResult, ChatUsage, FinishReason } from './chat-model.js';
export {
  OpenAICompatibleChatModel,
  type OpenAICompatibleChatModelOptions,
} from './openai-compatible-chat-model.js';
