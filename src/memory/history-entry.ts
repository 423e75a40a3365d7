/**
 * One line of `memory/history.jsonl`: a consolidation summary (or raw archive) with a strictly
 * monotonic `cursor`, a `YYYY-MM-DD HH:MM` timestamp and the session it came from.
 */
export type HistoryEntry = {
  readonly cursor: number;
  readonly timestamp: string;
  readonly content: string;
  readonly sessionKey?: string;
};

/** A line of history.jsonl that was skipped, with the reason. */
export type HistoryWarning = { readonly line: number; readonly reason: string };

/** True for a valid cursor: an integer (not a boolean) ≥ 0. */
export function isValidCursor(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Parses one history.jsonl line. Returns the entry, or the reason it is skipped (unparsable,
 * not an object, missing or invalid cursor, non-string timestamp/content/session_key).
 */
export function parseHistoryLine(line: string): HistoryEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  // A non-null, non-array object parsed from JSON is a plain record.
  const record = value as Record<string, unknown>;
  if (!('cursor' in record)) return 'no cursor';
  if (!isValidCursor(record['cursor'])) return 'invalid cursor (must be an integer ≥ 0)';
  const { timestamp, content } = record;
  const sessionKey = record['session_key'];
  if (typeof timestamp !== 'string') return 'timestamp is not a string';
  if (typeof content !== 'string') return 'content is not a string';
  if (sessionKey !== undefined && sessionKey !== null && typeof sessionKey !== 'string') {
    return 'session_key is not a string';
  }
  return {
    cursor: record['cursor'],
    timestamp,
    content,
    ...(typeof sessionKey === 'string' ? { sessionKey } : {}),
  };
}

/** Serialises an entry as one history.jsonl line (nanobot's field names), without the newline. */
export function formatHistoryLine(entry: HistoryEntry): string {
  return JSON.stringify({
    cursor: entry.cursor,
    timestamp: entry.timestamp,
    content: entry.content,
    ...(entry.sessionKey === undefined ? {} : { session_key: entry.sessionKey }),
  });
}

/** nanobot's internal session keys, hidden from other sessions' recent history in unified mode. */
export function isInternalSessionKey(key: string): boolean {
  return key === 'heartbeat' || key.startsWith('cron:') || key.startsWith('dream:');
}
