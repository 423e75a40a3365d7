/**
 * @module ctxloom/adapters
 * Converts ctxloom messages to and from the OpenAI chat completions, Anthropic Messages and AI SDK
 * `ModelMessage` formats, and plugs the governor into the AI SDK tool loop (`createPrepareStep`).
 * The AI SDK is only referenced by type here: importing this module loads nothing from it.
 */
export { type AdapterResult, type AdapterWarning, type DataUrl, parseDataUrl } from './adapter-warning.js';
export type {
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './anthropic-types.js';
export {
  type CreatePrepareStepOptions,
  createPrepareStep,
  type PrepareStepArguments,
  type PrepareStepSource,
  type PrepareStepTrace,
} from './create-prepare-step.js';
export { type FromAiSdkMessagesOptions, fromAiSdkMessages } from './from-ai-sdk-messages.js';
export { type FromOpenAIChatMessagesOptions, fromOpenAIChatMessages } from './from-openai-chat-messages.js';
export type {
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './openai-chat-types.js';
export { AI_SDK_PROVIDER_KEY, type ToAiSdkMessagesOptions, toAiSdkMessages } from './to-ai-sdk-messages.js';
export {
  type ToAnthropicMessagesOptions,
  type ToAnthropicMessagesResult,
  toAnthropicMessages,
} from './to-anthropic-messages.js';
export { type ToOpenAIChatMessagesOptions, toOpenAIChatMessages } from './to-openai-chat-messages.js';
