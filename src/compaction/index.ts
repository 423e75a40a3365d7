/**
 * @module ctxloom/compaction
 * Compaction over an append-only history: records that stand for runs of messages, the view the model
 * sees, and the lineage checks.
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
export { type AppendCompactionOptions, appendCompaction } from './append-compaction.js';
export {
  type CompactHistoryOptions,
  type CompactHistoryResult,
  type CompactionSkipReason,
  compactHistory,
  DEFAULT_COMPACT_HISTORY,
} from './compact-history.js';
export {
  CompactionBreaker,
  type CompactionBreakerOptions,
  DEFAULT_COMPACTION_BREAKER,
} from './compaction-breaker.js';
export {
  DEFAULT_COMPACTION_PROMPT,
  type RenderTranscriptOptions,
  renderTranscript,
  TRANSCRIPT_TOOL_OUTPUT_CHARS,
} from './compaction-prompt.js';
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
