import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import {
  openSqliteDatabase,
  type SqliteDatabase,
  type SqliteDriverChoice,
} from '../sessions/sqlite-driver.js';
import { parseRecord } from './parse-record-lines.js';
import type { RecorderRecord } from './request-record.js';
import type { RequestRecordStore } from './request-record-store.js';

/** Options for {@link SqliteRequestStore}. */
export type SqliteRequestStoreOptions = {
  /** The database file (may be the session store's own file: the table is `ctxloom_requests`). */
  readonly path: string;
  /** Lines kept per session; older ones are deleted as new ones arrive. @default 5000 */
  readonly maxRecords?: number;
  /** The SQLite binding. @default 'auto' (node:sqlite when Node has it, else better-sqlite3) */
  readonly driver?: SqliteDriverChoice;
};

/** The keys of {@link SqliteRequestStoreOptions}, for `checkOptions`. @internal */
export const SQLITE_REQUEST_STORE_OPTION_KEYS = {
  path: true,
  maxRecords: true,
  driver: true,
} as const satisfies OptionKeys<SqliteRequestStoreOptions>;

/** Defaults of {@link SqliteRequestStoreOptions}. */
export const DEFAULT_SQLITE_REQUEST_STORE = Object.freeze({ maxRecords: 5_000, driver: 'auto' as const });

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ctxloom_requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ctxloom_requests_session ON ctxloom_requests (session_key, seq);
`;

/**
 * Request logs in a SQLite table, `ctxloom_requests (seq, session_key, record)`, one JSON line per
 * row. Each append deletes the session's rows beyond the newest `maxRecords`. The file is opened on
 * first use.
 */
export class SqliteRequestStore implements RequestRecordStore {
  readonly specificationVersion = 'v1';
  readonly id = 'sqlite';
  readonly path: string;
  readonly #maxRecords: number;
  readonly #driver: SqliteDriverChoice;
  #db: Promise<SqliteDatabase> | undefined;

  constructor(options: SqliteRequestStoreOptions) {
    checkOptions(options, {
      where: 'new SqliteRequestStore options',
      known: SQLITE_REQUEST_STORE_OPTION_KEYS,
    });
    const maxRecords = options.maxRecords ?? DEFAULT_SQLITE_REQUEST_STORE.maxRecords;
    if (!Number.isInteger(maxRecords) || maxRecords < 1) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `SqliteRequestStore maxRecords must be a whole number ≥ 1, got ${maxRecords}.`,
      });
    }
    this.path = options.path;
    this.#maxRecords = maxRecords;
    this.#driver = options.driver ?? DEFAULT_SQLITE_REQUEST_STORE.driver;
  }

  async append(record: RecorderRecord): Promise<void> {
    const db = await this.#open();
    db.prepare('INSERT INTO ctxloom_requests (session_key, record) VALUES (?, ?)').run(
      record.sessionKey,
      JSON.stringify(record),
    );
    db.prepare(
      `DELETE FROM ctxloom_requests WHERE session_key = ? AND seq <= (
         SELECT seq FROM ctxloom_requests WHERE session_key = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
    ).run(record.sessionKey, record.sessionKey, this.#maxRecords);
  }

  async read(sessionKey: string): Promise<readonly RecorderRecord[]> {
    const db = await this.#open();
    const rows = db
      .prepare('SELECT record FROM ctxloom_requests WHERE session_key = ? ORDER BY seq')
      .all(sessionKey);
    return rows.flatMap((row) => {
      const text = typeof row === 'object' && row !== null ? Reflect.get(row, 'record') : undefined;
      const record = typeof text === 'string' ? parseRecord(text) : undefined;
      if (record !== undefined) return [record];
      throw new ContextError({
        code: 'STORE_CORRUPT',
        message: `A row of ctxloom_requests in ${this.path} is not a request or usage record; delete the row.`,
      });
    });
  }

  async listSessions(): Promise<readonly string[]> {
    const db = await this.#open();
    return db
      .prepare('SELECT DISTINCT session_key AS key FROM ctxloom_requests ORDER BY session_key')
      .all()
      .flatMap((row) => {
        const key = typeof row === 'object' && row !== null ? Reflect.get(row, 'key') : undefined;
        return typeof key === 'string' ? [key] : [];
      });
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    if (db !== undefined) (await db).close();
  }

  #open(): Promise<SqliteDatabase> {
    this.#db ??= openSqliteDatabase({ path: this.path, driver: this.#driver }).then(({ db }) => {
      db.exec('PRAGMA busy_timeout = 5000');
      db.exec(SCHEMA);
      return db;
    });
    return this.#db;
  }
}
