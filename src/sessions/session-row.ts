import { SessionStoreError } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';
import type { Message } from '../core/message.js';
import type { SessionRecord, SessionSummary } from './session-store.js';
import { clampLastConsolidated } from './stamp-message.js';

/** A row of the SQL stores' sessions table (SQLite and PostgreSQL share the schema). */
export type SessionRow = {
  readonly key: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly metadata: string;
  readonly last_consolidated: number;
  readonly message_count: number;
  /**
   * Bumped by the schema's triggers whenever a message row of the session is deleted or updated, and
   * random for a new session row (see `SessionRowReads`); PostgreSQL's BIGINT arrives as text.
   */
  readonly generation: number | string;
};

/** The record of a stored session from its row and its messages. */
export function sessionRecordFromRow(
  row: SessionRow,
  session: { readonly messages: readonly Message[]; readonly count: number },
): SessionRecord {
  const { messages } = session;
  return {
    key: row.key,
    messages,
    metadata: parseMetadataColumn(row.metadata),
    lastConsolidated: clampLastConsolidated(row.last_consolidated, session.count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    exists: true,
    warnings: [],
  };
}

/** One line of `list()` from a sessions row. */
export function sessionSummaryFromRow(row: SessionRow): SessionSummary {
  return {
    key: row.key,
    messageCount: row.message_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Parses a stored message row (JSON of a {@link Message}); a bad row is a `STORE_CORRUPT` error. */
export function parseMessageRow(
  data: string,
  where: { readonly backend: string; readonly key: string },
): Message {
  try {
    // Rows are written only by this store from validated Message objects.
    return JSON.parse(data) as Message;
  } catch (error) {
    throw new SessionStoreError({
      code: 'STORE_CORRUPT',
      backend: where.backend,
      operation: 'load',
      message: `A stored message of session ${JSON.stringify(where.key)} is not valid JSON; the ${where.backend} database was changed outside ctxloom.`,
      cause: error,
    });
  }
}

/** Parses a stored metadata column; anything but a JSON object reads as `{}`. */
export function parseMetadataColumn(data: string): Readonly<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(data);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}
