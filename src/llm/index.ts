/**
 * @module ctxloom/llm
 * The ChatModel contract for the model calls ctxloom itself makes (consolidation, the memory writer),
 * and an OpenAI-compatible HTTP client (the bridge to AI SDK language models is in `ctxloom/ai-sdk`).
 */
export type { ChatModel, ChatRequest, ChatResult, ChatUsage, FinishReason } from './chat-model.js';
export {
  OpenAICompatibleChatModel,
  type OpenAICompatibleChatModelOptions,
} from './openai-compatible-chat-model.js';
