/**
 * @module ctxloom/compaction
 * Compaction over an append-only history: records that stand for runs of messages, the view the model
 * sees, and the lineage checks; the providers' own compaction (Anthropic, OpenAI Responses) passed
 * through as `provider` records.
 */

export { type AppliedCompactions, applyCompactions, viewId } from '../core/apply-compactions.js';
export {
  COMPACTION_DEPTH_KEY,
  COMPACTION_ID_KEY,
  type CompactionKind,
  type CompactionProducer,
  type CompactionRecord,
  type CompactionTrigger,
} from '../core/compaction-record.js';
export type { LineageViolation } from '../core/lineage-violation.js';
export { sessionView } from '../core/session-view.js';
export { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
export {
  COMPACTIONS_METADATA_KEY,
  sessionCompactions,
  storedCompactions,
} from '../sessions/session-compactions.js';
export {
  type AnthropicCompactNowOptions,
  type AnthropicCompactNowRequest,
  anthropicCompactNow,
} from './anthropic-compact-now.js';
export {
  ANTHROPIC_COMPACT_BETA,
  ANTHROPIC_COMPACT_NOW_BETA,
  ANTHROPIC_CONTEXT_MANAGEMENT_BETA,
  type AnthropicClearToolUsesEdit,
  type AnthropicClearToolUsesOptions,
  type AnthropicCompactEdit,
  type AnthropicCompactOptions,
  type AnthropicContextManagementOptions,
  type AnthropicContextManagementRequest,
  anthropicContextManagement,
  DEFAULT_ANTHROPIC_COMPACT_TRIGGER,
  MIN_ANTHROPIC_COMPACT_TRIGGER,
} from './anthropic-context-management.js';
export { type AppendCompactionOptions, appendCompaction } from './append-compaction.js';
export {
  type AutoCompactionOptions,
  type BeforeCompactAnswer,
  type BeforeCompactInfo,
  type BudgetShare,
  type CompactedInfo,
  DEFAULT_AUTO_COMPACTION,
} from './auto-compaction-options.js';
export { AutoCompactor, type AutoCompactRequest, type AutoCompactResult } from './auto-compactor.js';
export {
  type CompactHistoryOptions,
  type CompactHistoryResult,
  type CompactionSkipReason,
  compactHistory,
  DEFAULT_COMPACT_HISTORY,
} from './compact-history.js';
export {
  type CompactWithProviderOptions,
  type CompactWithProviderResult,
  type CompactWithProviderSkipReason,
  compactWithProvider,
} from './compact-with-provider.js';
export {
  CompactionBreaker,
  type CompactionBreakerOptions,
  DEFAULT_COMPACTION_BREAKER,
} from './compaction-breaker.js';
export { COMPACTION_LEASE_KEY, type CompactionLease } from './compaction-lease.js';
export {
  DEFAULT_COMPACTION_PROMPT,
  type RenderTranscriptOptions,
  renderTranscript,
  TRANSCRIPT_TOOL_OUTPUT_CHARS,
} from './compaction-prompt.js';
export {
  type OpenAIContextManagementOptions,
  type OpenAIContextManagementRequest,
  openaiContextManagement,
} from './openai-context-management.js';
export {
  DEFAULT_PINNED_CONTEXT,
  isRealUserRequest,
  PINNED_KEY,
  type PinnedContextOptions,
} from './pinned-context.js';
export {
  type CompactionPlan,
  DEFAULT_KEEP_RECENT,
  type PlanCompactionOptions,
  planCompaction,
} from './plan-compaction.js';
export {
  type ProviderCompactionRecordOptions,
  type ProviderCompactionResult,
  type ProviderCompactionSkipReason,
  providerCompactionRecord,
} from './provider-compaction-record.js';
export type { ProviderCompactionFormat } from './read-provider-compaction.js';
