import type { CompactionRecord } from '../core/compaction-record.js';
import { isRecord } from '../core/is-record.js';
import type { SessionRecord } from './session-store.js';

/**
 * The session metadata key under which stores keep a session's compaction records, in the order they
 * were made. Metadata travels through every store (JSONL header, SQL column, memory) and nanobot
 * loads it as it is, so records need no second file or table.
 */
export const COMPACTIONS_METADATA_KEY = 'ctxloom_compactions';

/**
 * The compaction records a loaded session keeps, in order: the records stored with
 * `appendCompaction`, after the record of nanobot's consolidation cursor (`lastConsolidated`: the
 * messages before it live on as history entries in long-term memory, so the view leaves them out).
 * Entries that are not records (written by hand) are left out.
 */
export function sessionCompactions(session: SessionRecord): readonly CompactionRecord[] {
  const stored = storedCompactions(session);
  const firstIndex = session.firstIndex ?? 0;
  const archived = session.messages.slice(0, Math.max(0, session.lastConsolidated - firstIndex));
  if (archived.length === 0) return stored;
  const consolidation: CompactionRecord = {
    id: `consolidation-${session.lastConsolidated}`,
    kind: 'consolidation',
    replaces: archived.map((message) => message.id),
    depth: 1,
    parents: [],
    producer: { strategy: 'nanobot-consolidation' },
    tokensBefore: 0,
    tokensAfter: 0,
    trigger: 'auto',
    createdAt: session.updatedAt ?? '',
  };
  return [consolidation, ...stored];
}

/** The records stored in the session's metadata, in order. */
export function storedCompactions(session: Pick<SessionRecord, 'metadata'>): readonly CompactionRecord[] {
  const value = session.metadata[COMPACTIONS_METADATA_KEY];
  if (!Array.isArray(value)) return [];
  return value.filter(isCompactionRecord);
}

function isCompactionRecord(value: unknown): value is CompactionRecord {
  return (
    isRecord(value) &&
    typeof value['id'] === 'string' &&
    typeof value['kind'] === 'string' &&
    Array.isArray(value['replaces']) &&
    value['replaces'].every((id) => typeof id === 'string') &&
    typeof value['depth'] === 'number' &&
    Array.isArray(value['parents'])
  );
}
