/**
 * Tools the model calls to manage its context, and deferred tool definitions: a registry whose
 * deferred tools are offered through tool search (BM25 or a regular expression over names,
 * descriptions and parameter names) and loaded when the model asks, the `tools` of every request
 * staying byte-identical (Anthropic tool search and inline tools, OpenAI `tool_search`, a
 * provider-neutral search + `call_tool`).
 * @module
 */
export {
  BM25_INDEX_OPTION_KEYS,
  type Bm25Document,
  type Bm25Hit,
  type Bm25Index,
  type Bm25IndexOptions,
  createBm25Index,
} from './bm25-index.js';
export { type CarryLoadedToolsOptions, carryLoadedTools, visibleLoadedTools } from './carry-loaded-tools.js';
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
export {
  OPENAI_TOOL_SEARCH_OUTPUT_OPTION_KEYS,
  type OpenAIToolSearchCallItem,
  type OpenAIToolSearchOutcome,
  type OpenAIToolSearchOutputOptions,
  openAIToolSearchOutput,
} from './openai-tool-search-output.js';
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
