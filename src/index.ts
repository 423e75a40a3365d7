/**
 * @module ctxloom
 * Builds, governs and explains the context an LLM agent sends to its model. The root holds what an
 * application needs; each layer's subpath (`ctxloom/filters`, `ctxloom/sessions`, ...) holds its building
 * blocks for extension authors, and `ctxloom/ai-sdk` the AI SDK integration.
 */

export type { AdapterWarning } from './adapters/adapter-warning.js';
export type { AnthropicMessage } from './adapters/anthropic-types.js';
export { fromAnthropicMessages } from './adapters/from-anthropic-messages.js';
export { fromOpenAIChatMessages } from './adapters/from-openai-chat-messages.js';
export { fromOpenAIResponsesInput } from './adapters/from-openai-responses-input.js';
export type { OpenAIChatMessage } from './adapters/openai-chat-types.js';
export type { OpenAIResponsesInputItem } from './adapters/openai-responses-types.js';
export { type RepairToolPairingResult, repairToolPairing } from './adapters/repair-tool-pairing.js';
export { type ToAnthropicMessagesOptions, toAnthropicMessages } from './adapters/to-anthropic-messages.js';
export {
  type ToOpenAIChatMessagesOptions,
  toOpenAIChatMessages,
} from './adapters/to-openai-chat-messages.js';
export {
  type ToOpenAIResponsesInputOptions,
  toOpenAIResponsesInput,
} from './adapters/to-openai-responses-input.js';
export {
  diffRequests,
  findVolatileContent,
  normalizeUsage,
  planCacheBreakpoints,
  simulatePromptCache,
  UsageCalibratedTokenCounter,
  VolatileContentCheck,
} from './cache/index.js';
export {
  type AutoCompactionOptions,
  AutoCompactor,
  appendCompaction,
  COMPACTION_ID_KEY,
  type CompactHistoryOptions,
  type CompactHistoryResult,
  CompactionBreaker,
  type CompactionKind,
  type CompactionPlan,
  type CompactionProducer,
  type CompactionRecord,
  type CompactionSkipReason,
  type CompactionTrigger,
  compactHistory,
  type LineageViolation,
  type PinnedContextOptions,
  planCompaction,
  sessionCompactions,
  sessionView,
  validateCompactionLineage,
} from './compaction/index.js';
export type { CtxloomConfig } from './config/config-schema.js';
export { createTokenCounter } from './config/create-token-counter.js';
export { type LoadedConfig, loadConfig } from './config/load-config.js';
export {
  type AnthropicDeferredToolsOptions,
  anthropicContextTools,
  anthropicDeferredTools,
  type CarryLoadedToolsOptions,
  type ContextToolName,
  type ContextToolResult,
  type ContextTools,
  type CreateContextToolsOptions,
  carryLoadedTools,
  createBm25Index,
  createContextTools,
  createToolRegistry,
  DEFERRED_TOOL_MECHANISMS,
  type DeferredToolCallOutcome,
  type DeferredToolMechanism,
  handleDeferredToolCall,
  LOADED_TOOLS_KEY,
  neutralDeferredTools,
  openAIContextTools,
  openAIResponsesDeferredTools,
  openAIToolSearchOutput,
  readLoadedTools,
  saveLoadedTools,
  type ToolRegistry,
  type ToolRegistryOptions,
  type ToolSearchMatch,
  type ToolSearchMode,
} from './context-tools/index.js';
export type { Decision } from './core/decision.js';
export {
  AdapterError,
  BudgetUnsatisfiableError,
  ContextError,
  type ContextErrorCode,
  SessionStoreError,
} from './core/errors.js';
export { msg, type ToolCallInput } from './core/factories.js';
export type { JsonObject, JsonValue } from './core/json.js';
export type {
  Content,
  ContentPart,
  FilePart,
  ImagePart,
  Message,
  Metadata,
  NativeFields,
  ProviderOptions,
  ProviderPart,
  ReasoningPart,
  Role,
  TextPart,
  ToolCall,
  ToolOutputType,
} from './core/message.js';
export type { SessionNotes } from './core/session-notes.js';
export { type ToolCallViolation, validateToolCallIntegrity } from './core/tool-call-integrity.js';
export type { ToolDefinition } from './core/tool-definition.js';
export { ContextGovernor, type ContextGovernorOptions } from './filters/context-governor.js';
export { MaxMessagesFilter, type MaxMessagesFilterOptions } from './filters/max-messages-filter.js';
export {
  type SanitizeToolCallHistoryOptions,
  type SanitizeToolCallHistoryResult,
  sanitizeToolCallHistory,
} from './filters/sanitize-tool-call-history.js';
export { TokenBudgetFilter, type TokenBudgetFilterOptions } from './filters/token-budget-filter.js';
export {
  ToolResultBudgetFilter,
  type ToolResultBudgetFilterOptions,
} from './filters/tool-result-budget-filter.js';
export type { ChatModel, ChatRequest, ChatResult, ChatUsage } from './llm/chat-model.js';
export { ChatModelError } from './llm/chat-model-error.js';
export {
  OpenAICompatibleChatModel,
  type OpenAICompatibleChatModelOptions,
} from './llm/openai-compatible-chat-model.js';
export type { ConsolidationResult } from './memory/consolidation-result.js';
export { HistoryLog } from './memory/history-log.js';
export { MemoryConsolidator } from './memory/memory-consolidator.js';
export type { MemoryConsolidatorOptions } from './memory/memory-consolidator-options.js';
export { MemoryWriter, type MemoryWriterOptions } from './memory/memory-writer.js';
export type { BuildCheck, BuildCheckRequest } from './pipeline/build-check.js';
export type { BuildInput } from './pipeline/build-input.js';
export {
  type BuildResult,
  type BuildTrace,
  type SectionTokens,
  type StageTrace,
  type ToolTokens,
  type TraceWarning,
  traceDecisions,
} from './pipeline/build-trace.js';
export { ContextPipeline, type ContextPipelineOptions } from './pipeline/context-pipeline.js';
export type { BuildContext, ContextFilter, FilterResult, MessageProvider } from './pipeline/contracts.js';
export { type ContextLossWarning, isContextLossWarning } from './pipeline/find-context-loss.js';
export { ContextBuilder } from './presets/context-builder.js';
export type { AgentPresetOptions } from './presets/for-agent.js';
export type { ChatPresetOptions } from './presets/for-chat.js';
export type { ReactPresetOptions } from './presets/for-react.js';
export type { SkillPresetOptions } from './presets/for-skill.js';
export { type ResolveForLlmOptions, resolveForLlm } from './presets/resolve-for-llm.js';
export { NotesProvider } from './providers/notes-provider.js';
export { JsonlRequestStore, RequestRecorder } from './recorder/index.js';
export {
  type CompactionDescription,
  type CompactionItem,
  describeCompactions,
} from './sessions/describe-compactions.js';
export { type GetHistoryOptions, getHistory } from './sessions/get-history.js';
export { JsonlSessionStore, type JsonlSessionStoreOptions } from './sessions/jsonl-session-store.js';
export { MemorySessionStore } from './sessions/memory-session-store.js';
export { fromNanobotDict, type NanobotDict, toNanobotDict } from './sessions/nanobot-message.js';
export { PostgresSessionStore, type PostgresSessionStoreOptions } from './sessions/postgres-session-store.js';
export {
  type LoadedReplay,
  loadReplayedSession,
  type ReplaySessionOptions,
} from './sessions/replay-session.js';
export { resolveNanobotSessionsDir } from './sessions/resolve-nanobot-sessions-dir.js';
export { type SaveTurnOptions, saveTurn } from './sessions/save-turn.js';
export { NOTES_METADATA_KEY, sessionNotesOf } from './sessions/session-notes-of.js';
export type {
  SessionLoadOptions,
  SessionRecord,
  SessionStore,
  SessionSummary,
} from './sessions/session-store.js';
export { SqliteSessionStore, type SqliteSessionStoreOptions } from './sessions/sqlite-session-store.js';
export { createSkillEnvironment, type SkillEnvironment } from './skills/skill-environment.js';
export { type Skill, SkillsCatalog, type SkillsCatalogOptions } from './skills/skills-catalog.js';
export { CachedTokenCounter } from './tokens/cached-token-counter.js';
export { EstimatingTokenCounter } from './tokens/estimating-token-counter.js';
export { HFTokenCounter } from './tokens/hf-token-counter.js';
export { SimpleTokenCounter } from './tokens/simple-token-counter.js';
export { TiktokenTokenCounter } from './tokens/tiktoken-token-counter.js';
export type { TokenCounter } from './tokens/token-counter.js';
