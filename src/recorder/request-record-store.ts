import type { RecorderRecord } from './request-record.js';

/** Options of {@link RequestRecordStore.read}. */
export type ReadRequestRecordsOptions = { readonly signal?: AbortSignal };

/**
 * Where a `RequestRecorder` keeps its lines: JSONL files beside the sessions, SQLite or PostgreSQL.
 * Every store is bounded (it drops its oldest records past a size) and keeps the lines of a session in
 * the order they were appended.
 */
export interface RequestRecordStore {
  readonly specificationVersion: 'v1';
  /** The backend, e.g. `jsonl`, `sqlite`, `postgres`. */
  readonly id: string;
  /** Appends one line to its session's log. */
  append(record: RecorderRecord): Promise<void>;
  /** Every line kept for a session, oldest first (empty for an unknown session). */
  read(sessionKey: string, options?: ReadRequestRecordsOptions): Promise<readonly RecorderRecord[]>;
  /** The sessions that have lines, sorted. */
  listSessions(options?: ReadRequestRecordsOptions): Promise<readonly string[]>;
  /**
   * Optional capability: a cheap value that changes whenever the session's log changes (watchers poll
   * it instead of reading the log). @default none: watchers read the log
   */
  version?(sessionKey: string): Promise<string>;
  /** Releases connections or handles. */
  close(): Promise<void>;
}
