import { applyCompactions } from './apply-compactions.js';
import type { CompactionRecord } from './compaction-record.js';
import type { Message } from './message.js';

/**
 * What the model sees of a session: its append-only messages with the compaction records replayed in
 * order (each record's run becomes its summary, carrying `metadata.compactionId`, followed by the
 * messages pinned in it). Records that do not fit are left out (see `validateCompactionLineage`).
 * Pure: the same messages and records always give the same view, summary objects included.
 */
export function sessionView(
  messages: readonly Message[],
  compactions: readonly CompactionRecord[],
): readonly Message[] {
  return applyCompactions(messages, compactions).view;
}
