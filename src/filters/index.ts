/**
 * @module ctxloom/filters
 */

export { AutoCompactionFilter, type AutoCompactionFilterOptions } from './auto-compaction-filter.js';
export {
  BackfillToolResultsFilter,
  type BackfillToolResultsFilterOptions,
} from './backfill-tool-results-filter.js';
export { BudgetGuardFilter, type BudgetGuardFilterOptions } from './budget-guard-filter.js';
export {
  ContextGovernor,
  type ContextGovernorOptions,
  type PrepareForModelOptions,
} from './context-governor.js';
export {
  DropOrphanToolResultsFilter,
  type DropOrphanToolResultsFilterOptions,
  findOrphanResults,
} from './drop-orphan-tool-results-filter.js';
export { estimatePromptTokens } from './estimate-prompt-tokens.js';
export {
  compactionText,
  DEFAULT_BACKFILL_TEXT,
  DEFAULT_COMPACTABLE_TOOLS,
  DEFAULT_COMPACTION_TARGET_RATIO,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  DEFAULT_MIN_COMPACT_CHARS,
  DEFAULT_OFFLOAD_EXEMPT_TOOLS,
  DEFAULT_OFFLOAD_PREVIEW_CHARS,
  DEFAULT_PLACEHOLDER_TEXTS,
  DEFAULT_SAFETY_BUFFER_TOKENS,
  emptyToolResultText,
  type InputBudgetOptions,
  resolveInputBudget,
} from './governor-constants.js';
export {
  GOVERNOR_STATE_KEY,
  type GovernorRunState,
  governorRunState,
  withGovernorRunState,
} from './governor-run-state.js';
export {
  InflightCompactionFilter,
  type InflightCompactionFilterOptions,
} from './inflight-compaction-filter.js';
export {
  JoinSystemMessagesFilter,
  type JoinSystemMessagesFilterOptions,
  SYSTEM_PROMPT_PARTS_KEY,
  type SystemPromptPart,
} from './join-system-messages-filter.js';
export { KeepOverBudgetFilter, type KeepOverBudgetFilterOptions } from './keep-over-budget-filter.js';
export {
  DEFAULT_MAX_MESSAGES_FILTER,
  MaxMessagesFilter,
  type MaxMessagesFilterOptions,
} from './max-messages-filter.js';
export {
  MERGED_FROM_KEY,
  MergeCurrentMessageFilter,
  type MergeCurrentMessageFilterOptions,
} from './merge-current-message-filter.js';
export {
  isEmptyResult,
  type NormalizedToolResult,
  type NormalizeToolResultOptions,
  normalizeToolResult,
} from './normalize-tool-result.js';
export { RoleAlternationFilter, type RoleAlternationFilterOptions } from './role-alternation-filter.js';
export {
  type SanitizeToolCallHistoryOptions,
  type SanitizeToolCallHistoryResult,
  sanitizeToolCallHistory,
} from './sanitize-tool-call-history.js';
export {
  SanitizeToolCallsFilter,
  type SanitizeToolCallsFilterOptions,
} from './sanitize-tool-calls-filter.js';
export { SnipHistoryFilter, type SnipHistoryFilterOptions } from './snip-history-filter.js';
export {
  isValidToolCallName,
  StripMalformedToolCallsFilter,
  type StripMalformedToolCallsFilterOptions,
} from './strip-malformed-tool-calls-filter.js';
export {
  StripPlaceholderAssistantsFilter,
  type StripPlaceholderAssistantsFilterOptions,
} from './strip-placeholder-assistants-filter.js';
export {
  DEFAULT_TOKEN_BUDGET_FILTER,
  TokenBudgetFilter,
  type TokenBudgetFilterOptions,
} from './token-budget-filter.js';
export {
  ToolResultBudgetFilter,
  type ToolResultBudgetFilterOptions,
} from './tool-result-budget-filter.js';
