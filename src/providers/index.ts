/**
 * @module ctxloom/providers
 * The built-in message providers.
 */
export {
  BootstrapFilesProvider,
  type BootstrapFilesProviderOptions,
  type BootstrapSkip,
  DEFAULT_BOOTSTRAP_FILES_PROVIDER,
} from './bootstrap-files-provider.js';
export {
  annotateMessage,
  CURRENT_MESSAGE_SECTION,
  DEFAULT_STATE_HISTORY_PROVIDER,
  HISTORY_SEMANTICS,
  SELF_TOOL_PLAN,
  StateHistoryProvider,
  type StateHistoryProviderOptions,
  TOOL_OBSERVATION,
  type WorkingMemoryAdapter,
} from './state-history-provider.js';
export {
  DEFAULT_STATIC_PROMPT_PROVIDER,
  StaticPromptProvider,
  type StaticPromptProviderOptions,
} from './static-prompt-provider.js';
export {
  DEFAULT_TOOLS_DESC_PROVIDER,
  renderToolList,
  TOOLS_DESC_PLACEHOLDER,
  ToolsDescProvider,
  type ToolsDescProviderOptions,
} from './tools-desc-provider.js';
