/**
 * @module ctxloom/compaction
 * Compaction over an append-only history: records that stand for runs of messages, the view the model
 * sees, and the lineage checks.
 */
export { type AppliedCompactions, applyCompactions, viewId } from './apply-compactions.js';
export {
  COMPACTION_ID_KEY,
  type CompactionKind,
  type CompactionProducer,
  type CompactionRecord,
  type CompactionTrigger,
} from './compaction-record.js';
export type { LineageViolation } from './lineage-violation.js';
export { sessionView } from './session-view.js';
export { validateCompactionLineage } from './validate-compaction-lineage.js';
