/**
 * @module ctxloom/context-tools
 * Tools the model calls to manage its own context over the session's append-only history: recall and
 * expand what is out of view, compact now, context remaining, a new context with durable notes, the
 * notes, and a confined memory folder (Anthropic's memory-tool commands); with adapters for the OpenAI
 * and Anthropic SDKs (the AI SDK's is `contextToolSet` in ctxloom/ai-sdk).
 */
export {
  type AnthropicContextTool,
  type AnthropicContextTools,
  type AnthropicContextToolsOptions,
  type AnthropicToolResultBlock,
  type AnthropicToolUseLike,
  anthropicContextTools,
} from './anthropic-context-tools.js';
export { budgetNoteText } from './budget-note.js';
export { CONTEXT_TOOL_DEFINITIONS } from './context-tool-definitions.js';
export {
  CONTEXT_TOOL_NAMES,
  type ContextToolName,
  type ContextToolResult,
  contextToolOutput,
} from './context-tool-result.js';
export {
  type ContextToolsCompactionOptions,
  CREATE_CONTEXT_TOOLS_OPTION_KEYS,
  type CreateContextToolsOptions,
  DEFAULT_CONTEXT_TOOLS,
} from './context-tools-options.js';
export { type ContextUsage, renderContextUsage } from './context-usage.js';
export {
  type ContextToolExecuteOptions,
  type ContextTools,
  createContextTools,
} from './create-context-tools.js';
export { MEMORY_TOOL_PREFIX } from './memory-path.js';
export { RESET_NOTES_KEY } from './new-context.js';
export {
  type OpenAIContextTools,
  type OpenAIFunctionTool,
  type OpenAIToolCallLike,
  type OpenAIToolMessage,
  openAIContextTools,
} from './openai-context-tools.js';
export { MAX_RECALL_PATTERN_CHARS, MAX_RECALL_QUERY_CHARS } from './recall-query.js';
export type { RecallSourceKind } from './recall-sources.js';
