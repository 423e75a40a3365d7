/**
 * @module ctxloom/adapters
 * Converts ctxloom messages to and from the OpenAI chat completions, OpenAI Responses and Anthropic
 * Messages formats, losslessly from the messages alone (`native` fields, reasoning and provider parts). The AI SDK
 * adapters live in `ctxloom/ai-sdk`; nothing here imports an SDK.
 */
export { type AdapterResult, type AdapterWarning, type DataUrl, parseDataUrl } from './adapter-warning.js';
export {
  type AnthropicCacheBreakpoints,
  MAX_ANTHROPIC_CACHE_BREAKPOINTS,
} from './anthropic-cache-breakpoints.js';
export type { AnthropicOrigin, AnthropicOrigins } from './anthropic-origins.js';
export type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicMessage,
  AnthropicRedactedThinkingBlock,
  AnthropicSystem,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './anthropic-types.js';
export type { ForeignOrigin, ForeignOrigins } from './foreign-origins.js';
export {
  type AnthropicRequestInput,
  type FromAnthropicMessagesOptions,
  type FromAnthropicMessagesResult,
  fromAnthropicMessages,
} from './from-anthropic-messages.js';
export {
  type FromOpenAIChatMessagesOptions,
  type FromOpenAIChatMessagesResult,
  fromOpenAIChatMessages,
  type OpenAIChatOrigins,
} from './from-openai-chat-messages.js';
export {
  type FromOpenAIResponsesInputOptions,
  type FromOpenAIResponsesInputResult,
  fromOpenAIResponsesInput,
  type OpenAIResponsesOrigins,
} from './from-openai-responses-input.js';
export { legalOpenAIName, OPENAI_NAME_PATTERN } from './legal-openai-name.js';
export type {
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './openai-chat-types.js';
export type {
  OpenAIResponsesFunctionCall,
  OpenAIResponsesFunctionCallOutput,
  OpenAIResponsesInputContent,
  OpenAIResponsesInputFile,
  OpenAIResponsesInputImage,
  OpenAIResponsesInputItem,
  OpenAIResponsesInputText,
  OpenAIResponsesMessageItem,
  OpenAIResponsesReasoningItem,
} from './openai-responses-types.js';
export {
  DEFAULT_MISSING_RESULT_TEXT,
  type RepairToolPairingOptions,
  type RepairToolPairingResult,
  repairToolPairing,
  type ToolPairingOptions,
  type ToolPairingPolicy,
} from './repair-tool-pairing.js';
export { type ScrubResult, scrubLoneSurrogates } from './scrub-lone-surrogates.js';
export {
  type ToAnthropicMessagesOptions,
  type ToAnthropicMessagesResult,
  toAnthropicMessages,
} from './to-anthropic-messages.js';
export {
  type ToOpenAIChatMessagesOptions,
  type ToOpenAIChatMessagesResult,
  toOpenAIChatMessages,
} from './to-openai-chat-messages.js';
export {
  type ToOpenAIResponsesInputOptions,
  type ToOpenAIResponsesInputResult,
  toOpenAIResponsesInput,
} from './to-openai-responses-input.js';
export { isToolError, TOOL_ERROR_KEY } from './tool-error.js';
