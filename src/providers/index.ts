/**
 * @module ctxloom/providers
 * The built-in message providers.
 */

export {
  AgentBootstrapProvider,
  type AgentBootstrapProviderOptions,
} from './agent-bootstrap-provider.js';
export { AlwaysOnSkillsProvider, type AlwaysOnSkillsProviderOptions } from './always-on-skills-provider.js';
export { ArchivedSummaryProvider, type ArchivedSummaryProviderOptions } from './archived-summary-provider.js';
export {
  type BootstrapFileSource,
  BootstrapFilesProvider,
  type BootstrapFilesProviderOptions,
  type BootstrapSkip,
  DEFAULT_BOOTSTRAP_FILES_PROVIDER,
} from './bootstrap-files-provider.js';
export {
  CurrentMessageProvider,
  type CurrentMessageProviderOptions,
  type RuntimeMetadataOptions,
  runtimeMetadataLines,
} from './current-message-provider.js';
export { DEFAULT_TOOL_CONTRACT } from './default-tool-contract.js';
export { IdentityProvider, type IdentityProviderOptions, renderIdentity } from './identity-provider.js';
export { MemoryProvider, type MemoryProviderOptions, type MemoryReader } from './memory-provider.js';
export { mergeContent } from './merge-content.js';
export { NotesProvider, type NotesProviderOptions } from './notes-provider.js';
export {
  DEFAULT_RECENT_HISTORY,
  RecentHistoryProvider,
  type RecentHistoryProviderOptions,
  type RecentHistorySource,
  type RecentHistoryTokenizer,
} from './recent-history-provider.js';
export {
  appendRuntimeContext,
  normaliseRuntimeBlocks,
  RUNTIME_CONTEXT_KEY,
  type RuntimeContextMarker,
  type RuntimeContextTextBlock,
  wrapRuntimeMetadata,
} from './runtime-context.js';
export { currentPlatform, describePlatform, type RuntimePlatform } from './runtime-platform.js';
export {
  DEFAULT_FILE_READING_TOOLS,
  type SkillSetMode,
  SkillSetPromptProvider,
  type SkillSetPromptProviderOptions,
} from './skill-set-prompt-provider.js';
export { SkillsIndexProvider, type SkillsIndexProviderOptions } from './skills-index-provider.js';
export {
  annotateMessage,
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
export { stripRuntimeContext } from './strip-runtime-context.js';
export {
  DEFAULT_TOOLS_DESC_PROVIDER,
  renderToolList,
  TOOLS_DESC_PLACEHOLDER,
  ToolsDescProvider,
  type ToolsDescProviderOptions,
} from './tools-desc-provider.js';
export {
  detectImageType,
  imagesThenText,
  type LoadUserMediaOptions,
  loadUserMedia,
  type SkippedMedia,
  type UserMedia,
  withAttachmentLines,
} from './user-media.js';
