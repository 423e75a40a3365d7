/**
 * @module ctxloom/ai-sdk
 * ctxloom for the Vercel AI SDK (6 and 7): `createPrepareStep` governs every step of a tool loop,
 * `ctxloomMiddleware` every model call; `fromAiSdkMessages`/`toAiSdkMessages` convert `ModelMessage`s
 * losslessly; `AiSdkChatModel` lets ctxloom's own model calls (consolidation, memory) use any AI SDK
 * model. Only types are imported from `ai` at load time; the package is imported on first use.
 */
export { AiSdkChatModel, type AiSdkChatModelOptions } from './ai-sdk-chat-model.js';
export type { AiSdkMessageLike, AiSdkPartLike, AiSdkProviderOptions } from './ai-sdk-message-like.js';
export type { AiSdkOrigin, AiSdkOrigins } from './ai-sdk-origins.js';
export type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
export type { AiSdkSystem } from './ai-sdk-system.js';
export { type AiSdkToolSet, aiSdkToolDefinitions } from './ai-sdk-tool-definitions.js';
export { type AiSdkToolSearchFunction, aiSdkToolSearch } from './ai-sdk-tool-search.js';
export { aiSdkUsage } from './ai-sdk-usage.js';
export { type ContextToolSet, type ContextToolSetOutput, contextToolSet } from './context-tool-set.js';
export {
  type AiSdkStepLike,
  type CreatePrepareStepOptions,
  type CtxloomPrepareStep,
  createPrepareStep,
  type PrepareStepArguments,
} from './create-prepare-step.js';
export { type CtxloomMiddlewareOptions, ctxloomMiddleware } from './ctxloom-middleware.js';
export {
  DEFERRED_AI_SDK_TOOLS_OPTION_KEYS,
  type DeferredAiSdkTools,
  type DeferredAiSdkToolsOptions,
  deferredAiSdkTools,
} from './deferred-ai-sdk-tools.js';
export {
  type FromAiSdkMessagesOptions,
  type FromAiSdkMessagesResult,
  fromAiSdkMessages,
} from './from-ai-sdk-messages.js';
export type { AiSdkGovernorSource } from './govern-ai-sdk-messages.js';
export { AI_SDK_PROVIDER_KEY } from './read-ai-sdk-messages.js';
export {
  type ToAiSdkMessagesOptions,
  type ToAiSdkMessagesResult,
  toAiSdkMessages,
} from './to-ai-sdk-messages.js';
