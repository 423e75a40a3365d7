import { viewId } from '../core/apply-compactions.js';
import { COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';

/**
 * For users' tests: throws unless the records' lineage is sound over `messages`
 * (`validateCompactionLineage` finds nothing) and every message reaches the view exactly once, raw or
 * through one covering summary (pinned messages with their own ids; a consolidation record's messages,
 * which live on in `memory/history.jsonl`, count as covered by it). The error lists every violation,
 * or the ids missing from or repeated in the view. Returns the view.
 */
export function assertCompactionLineage(
  messages: readonly Message[],
  records: readonly CompactionRecord[],
): readonly Message[] {
  const violations = validateCompactionLineage(messages, records);
  if (violations.length > 0)
    throw new Error(
      `Compaction lineage is broken (${violations.length} violation${violations.length === 1 ? '' : 's'}):\n${violations
        .map((violation) => `- record ${violation.recordId}: ${violation.type}: ${violation.message}`)
        .join('\n')}`,
    );
  const view = sessionView(messages, records);
  const covered = coverage(view, records);
  const missing = messages.map(viewId).filter((id) => !covered.has(id));
  const repeated = [...covered].filter(([, times]) => times > 1).map(([id]) => id);
  if (missing.length > 0 || repeated.length > 0)
    throw new Error(
      `The view does not hold every message exactly once: missing ${JSON.stringify(missing)}, more than once ${JSON.stringify(repeated)}.`,
    );
  return view;
}

/** How many times each message id is represented in the view (raw, or through the records' runs). */
function coverage(
  view: readonly Message[],
  records: readonly CompactionRecord[],
): ReadonlyMap<string, number> {
  const covered = new Map<string, number>();
  const count = (id: string): void => {
    covered.set(id, (covered.get(id) ?? 0) + 1);
  };
  const byId = new Map(records.map((record) => [record.id, record]));
  const expand = (id: string): void => {
    const record = byId.get(id);
    if (record === undefined) count(id);
    else for (const replaced of record.replaces) expand(replaced);
  };
  // A record without a summary (nanobot's consolidation) stands for its messages outside the view.
  for (const record of records)
    if (record.summary === undefined) for (const id of record.replaces) expand(id);
  for (const message of view) {
    const record = message.metadata?.[COMPACTION_ID_KEY];
    if (typeof record === 'string' && byId.has(record)) {
      for (const replaced of (byId.get(record) as CompactionRecord).replaces) expand(replaced);
    } else count(viewId(message));
  }
  return covered;
}
