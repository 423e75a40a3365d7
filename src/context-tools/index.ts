/**
 * @module ctxloom/context-tools
 * Tools the model calls to manage its own context over the session's append-only history: recall and
 * expand what is out of view, compact now, context remaining, a new context with durable notes, the
 * notes, and a confined memory folder (Anthropic's memory-tool commands); with adapters for the OpenAI
 * and Anthropic SDKs (the AI SDK's is `contextToolSet` in ctxloom/ai-sdk). And deferred tool definitions:
 * a registry whose deferred tools are offered through tool search (BM25 or a regular expression over
 * names, descriptions and parameter names) and loaded when the model asks, the `tools` of every request
 * staying byte-identical (Anthropic tool search and inline tools, OpenAI `tool_search`, a
 * provider-neutral search + `call_tool`).
 */
export {
  type AnthropicContextTool,
  type AnthropicContextTools,
  type AnthropicContextToolsOptions,
  type AnthropicToolResultBlock,
  type AnthropicToolUseLike,
  anthropicContextTools,
} from './anthropic-context-tools.js';
export {
  BM25_INDEX_OPTION_KEYS,
  type Bm25Document,
  type Bm25Hit,
  type Bm25Index,
  type Bm25IndexOptions,
  createBm25Index,
} from './bm25-index.js';
export { budgetNoteText } from './budget-note.js';
export { type CarryLoadedToolsOptions, carryLoadedTools, visibleLoadedTools } from './carry-loaded-tools.js';
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
export {
  type AnthropicDeferredToolsOptions,
  anthropicDeferredTools,
  neutralDeferredTools,
  openAIResponsesDeferredTools,
} from './deferred-request-tools.js';
export { DEFERRED_TOOL_MECHANISMS, type DeferredToolMechanism } from './deferred-tool-mechanism.js';
export {
  type DeferredToolCallOutcome,
  HANDLE_DEFERRED_TOOL_CALL_OPTION_KEYS,
  type HandleDeferredToolCallOptions,
  handleDeferredToolCall,
} from './handle-deferred-tool-call.js';
export {
  LOADED_TOOLS_KEY,
  LOADED_TOOLS_MESSAGE_KEY,
  readLoadedTools,
  withLoadedTools,
} from './loaded-tools.js';
export { MEMORY_TOOL_PREFIX } from './memory-path.js';
export { RESET_NOTES_KEY } from './new-context.js';
export {
  type OpenAIContextTools,
  type OpenAIFunctionTool,
  type OpenAIToolCallLike,
  type OpenAIToolMessage,
  openAIContextTools,
} from './openai-context-tools.js';
export {
  OPENAI_TOOL_SEARCH_OUTPUT_OPTION_KEYS,
  type OpenAIToolSearchCallItem,
  type OpenAIToolSearchOutcome,
  type OpenAIToolSearchOutputOptions,
  openAIToolSearchOutput,
} from './openai-tool-search-output.js';
export { MAX_RECALL_PATTERN_CHARS, MAX_RECALL_QUERY_CHARS } from './recall-query.js';
export type { RecallSourceKind } from './recall-sources.js';
export {
  SAVE_LOADED_TOOLS_OPTION_KEYS,
  type SaveLoadedToolsOptions,
  saveLoadedTools,
} from './save-loaded-tools.js';
export { searchTerms } from './search-terms.js';
export {
  createToolSearcher,
  MAX_TOOL_SEARCH_PATTERN_LENGTH,
  type ToolSearcher,
  type ToolSearchMatch,
  type ToolSearchMode,
  type ToolSearchResult,
} from './search-tools.js';
export {
  createToolRegistry,
  TOOL_REGISTRY_OPTION_KEYS,
  type ToolRegistry,
  type ToolRegistryOptions,
} from './tool-registry.js';
export { toolSearchText } from './tool-search-text.js';
