/**
 * @module ctxloom/adapters
 * Converts ctxloom messages to and from the OpenAI chat completions, OpenAI Responses and Anthropic
 * Messages formats, losslessly: what ctxloom did not change comes back as the same object. The AI SDK
 * adapters live in `ctxloom/ai-sdk`; nothing here imports an SDK.
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
export { type FromOpenAIChatMessagesOptions, fromOpenAIChatMessages } from './from-openai-chat-messages.js';
export type {
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './openai-chat-types.js';
export {
  type ToAnthropicMessagesOptions,
  type ToAnthropicMessagesResult,
  toAnthropicMessages,
} from './to-anthropic-messages.js';
export { type ToOpenAIChatMessagesOptions, toOpenAIChatMessages } from './to-openai-chat-messages.js';
