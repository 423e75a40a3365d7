import { applyCompactions } from './apply-compactions.js';
import type { CompactionRecord } from './compaction-record.js';
import type { LineageViolation } from './lineage-violation.js';
import type { Message } from './message.js';

/**
 * Checks compaction records against their history: every id they name exists, no message is covered
 * twice, every run is one contiguous stretch of the view that takes whole tool transactions, and
 * parents and depth match. Returns every violation, empty when the lineage is sound.
 */
export function validateCompactionLineage(
  messages: readonly Message[],
  compactions: readonly CompactionRecord[],
): readonly LineageViolation[] {
  return applyCompactions(messages, compactions).violations;
}
