import { createHash } from 'node:crypto';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError, SessionStoreError, throwIfAborted } from '../core/errors.js';
import type { Message, Metadata } from '../core/message.js';
import { checkSessionKey } from './check-session-key.js';
import { withFileLock } from './file-lock.js';
import { firstIndexOf, lastMessagesOf } from './last-messages.js';
import { ListenerSet } from './listener-set.js';
import { mergeMetadata } from './merge-metadata.js';
import { checkRewriteCount } from './rewrite-conflict.js';
import { rewriteTimes } from './rewrite-times.js';
import { parseMetadataColumn, type SessionRow, sessionSummaryFromRow } from './session-row.js';
import { DEFAULT_CACHED_SESSION_CHARS, type MessageRow, SessionRowReads } from './session-row-reads.js';
import type {
  MessageEventListener,
  SessionLoadOptions,
  SessionRecord,
  SessionRewrite,
  SessionStore,
  SessionSummary,
  SessionUpdateOptions,
  StoreCallOptions,
} from './session-store.js';
import { emptySessionRecord } from './session-store.js';
import {
  inTransaction,
  openSqliteDatabase,
  type SqliteDatabase,
  type SqliteDriverChoice,
  type SqliteDriverName,
} from './sqlite-driver.js';
import { clampLastConsolidated, stampMessage } from './stamp-message.js';

/** Options for {@link SqliteSessionStore}. */
export type SqliteSessionStoreOptions = {
  /** The database file (created if missing); one database holds many sessions. */
  readonly path: string;
  /** How long a writer waits for another process's write lock. @default 10000 */
  readonly busyTimeoutMs?: number;
  /** The clock for timestamps. @default the system clock */
  readonly now?: () => Date;
  /**
   * The SQLite binding: `node:sqlite` (built into Node ≥ 22.13, no native build), `better-sqlite3`
   * (an optional dependency), or `auto` (`node:sqlite` when this Node has it, else better-sqlite3).
   * Both read and write the same database file. @default 'auto'
   */
  readonly driver?: SqliteDriverChoice;
  /**
   * Characters of stored message text kept parsed from past loads, so a session loaded every turn
   * reads only its new rows (the session loaded last is always kept; 0 turns this off). @default 64 Mi
   */
  readonly cachedSessionChars?: number;
};

/** The keys of {@link SqliteSessionStoreOptions}, for `checkOptions`. @internal */
export const SQLITE_SESSION_STORE_OPTION_KEYS = {
  path: true,
  busyTimeoutMs: true,
  now: true,
  driver: true,
  cachedSessionChars: true,
} as const satisfies OptionKeys<SqliteSessionStoreOptions>;

type Open = { readonly db: SqliteDatabase; readonly driver: SqliteDriverName };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ctxloom_sessions (
  key TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}', last_consolidated INTEGER NOT NULL DEFAULT 0,
  message_count INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS ctxloom_messages (
  session_key TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (session_key, seq)) WITHOUT ROWID;`;

/** A database made before the generation column gets it on open; see `SessionRowReads`. */
const ADD_GENERATION = 'ALTER TABLE ctxloom_sessions ADD COLUMN generation INTEGER NOT NULL DEFAULT 0';

/** Any change to a stored message row, by any writer, bumps its session's generation. */
const TRIGGERS = `
CREATE TRIGGER IF NOT EXISTS ctxloom_messages_deleted AFTER DELETE ON ctxloom_messages BEGIN
  UPDATE ctxloom_sessions SET generation = generation + 1 WHERE key = old.session_key; END;
CREATE TRIGGER IF NOT EXISTS ctxloom_messages_updated AFTER UPDATE ON ctxloom_messages BEGIN
  UPDATE ctxloom_sessions SET generation = generation + 1
  WHERE key IN (old.session_key, new.session_key); END;`;

/**
 * A {@link SessionStore} in one SQLite database, on `node:sqlite` where Node has it and else on
 * better-sqlite3 12 (see `driver`; both are loaded on first use), in WAL mode with a busy timeout, so
 * several processes on one machine can share it. Each append is one `BEGIN IMMEDIATE` transaction that
 * numbers the messages after the session's current count, so concurrent writers never lose or
 * interleave a batch. Events reach this object's subscribers only.
 */
export class SqliteSessionStore implements SessionStore {
  readonly specificationVersion = 'v1';
  readonly id = 'sqlite';
  /** The database file. */
  readonly path: string;
  readonly #listeners = new ListenerSet();
  readonly #now: () => Date;
  readonly #busyTimeoutMs: number;
  readonly #driver: SqliteDriverChoice;
  readonly #reads: SessionRowReads;
  #db: Promise<Open> | undefined;

  constructor(options: SqliteSessionStoreOptions) {
    checkOptions(options, {
      where: 'new SqliteSessionStore options',
      known: SQLITE_SESSION_STORE_OPTION_KEYS,
    });
    this.path = options.path;
    this.#now = options.now ?? (() => new Date());
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    this.#driver = options.driver ?? 'auto';
    this.#reads = new SessionRowReads({
      backend: 'sqlite',
      maxChars: options.cachedSessionChars ?? DEFAULT_CACHED_SESSION_CHARS,
    });
  }

  /** Opens the database (if not yet open) and tells which binding serves it. */
  async driver(): Promise<SqliteDriverName> {
    return (await this.#open()).driver;
  }

  async append(
    sessionKey: string,
    messages: readonly Message[],
    options: StoreCallOptions = {},
  ): Promise<void> {
    this.#check(sessionKey, { ...options, operation: 'append' });
    if (messages.length === 0) return;
    const time = this.#now().toISOString();
    const stamped = messages.map((message) => stampMessage(message, time));
    const { db } = await this.#open();
    this.#run('append', () =>
      inTransaction(db, {
        mode: 'IMMEDIATE',
        task: () => {
          const count = touch(db, { sessionKey, time }).message_count;
          insertMessages(db, { sessionKey, start: count, messages: stamped });
          db.prepare('UPDATE ctxloom_sessions SET message_count = ? WHERE key = ?').run(
            count + stamped.length,
            sessionKey,
          );
        },
      }),
    );
    for (const message of stamped) this.#listeners.emit({ type: 'message-appended', sessionKey, message });
  }

  /**
   * The session; after the first load only the rows appended since are read and parsed, and old
   * messages come back as the same objects (see `SessionRowReads`).
   */
  async load(sessionKey: string, options: SessionLoadOptions = {}): Promise<SessionRecord> {
    this.#check(sessionKey, { ...options, operation: 'load' });
    const lastMessages = lastMessagesOf(options.lastMessages, { backend: 'sqlite', operation: 'load' });
    const { db } = await this.#open();
    return this.#run('load', () =>
      inTransaction(db, {
        mode: 'DEFERRED',
        task: () => {
          // Rows are written only by this store, in this schema.
          const row = db.prepare('SELECT * FROM ctxloom_sessions WHERE key = ?').get(sessionKey) as
            | SessionRow
            | undefined;
          if (row === undefined) {
            this.#reads.forget(sessionKey);
            return emptySessionRecord(sessionKey);
          }
          const select = (from: number) => ({
            from,
            rows: db
              .prepare(
                'SELECT seq, data FROM ctxloom_messages WHERE session_key = ? AND seq >= ? ORDER BY seq',
              )
              .all(sessionKey, from) as MessageRow[],
          });
          return (
            this.#reads.record(row, {
              selected: select(this.#reads.firstRow(row, lastMessages)),
              lastMessages,
            }) ??
            this.#reads.read(row, {
              selected: select(firstIndexOf(row.message_count, lastMessages)),
              lastMessages,
            })
          );
        },
      }),
    );
  }

  async setMetadata(sessionKey: string, patch: Metadata, options: SessionUpdateOptions = {}): Promise<void> {
    await this.#update({ sessionKey, options }, (db, row) => {
      const metadata = JSON.stringify(mergeMetadata(parseMetadataColumn(row.metadata), patch));
      db.prepare('UPDATE ctxloom_sessions SET metadata = ? WHERE key = ?').run(metadata, sessionKey);
    });
  }

  async setLastConsolidated(
    sessionKey: string,
    value: number,
    options: SessionUpdateOptions = {},
  ): Promise<void> {
    await this.#update({ sessionKey, options }, (db, row) => {
      const clamped = clampLastConsolidated(value, row.message_count);
      db.prepare('UPDATE ctxloom_sessions SET last_consolidated = ? WHERE key = ?').run(clamped, sessionKey);
    });
  }

  async rewrite(sessionKey: string, rewrite: SessionRewrite, options: StoreCallOptions = {}): Promise<void> {
    const times = rewriteTimes(rewrite, this.#now().toISOString());
    const messages = rewrite.messages.map((message) => stampMessage(message, times.updatedAt));
    await this.#update({ sessionKey, options }, (db, row) => {
      checkRewriteCount(rewrite, { backend: 'sqlite', actual: row.message_count });
      db.prepare('DELETE FROM ctxloom_messages WHERE session_key = ?').run(sessionKey);
      insertMessages(db, { sessionKey, start: 0, messages });
      const last = clampLastConsolidated(rewrite.lastConsolidated ?? row.last_consolidated, messages.length);
      db.prepare(
        `UPDATE ctxloom_sessions SET message_count = ?, last_consolidated = ?,
         created_at = coalesce(?, created_at), updated_at = coalesce(?, updated_at) WHERE key = ?`,
      ).run(messages.length, last, times.createdAt ?? null, rewrite.updatedAt ?? null, sessionKey);
    });
  }

  async delete(sessionKey: string, options: StoreCallOptions = {}): Promise<boolean> {
    this.#check(sessionKey, { ...options, operation: 'delete' });
    const { db } = await this.#open();
    return this.#run('delete', () =>
      inTransaction(db, {
        mode: 'IMMEDIATE',
        task: () => {
          db.prepare('DELETE FROM ctxloom_messages WHERE session_key = ?').run(sessionKey);
          db.prepare('DELETE FROM ctxloom_sessions WHERE key = ?').run(sessionKey);
          return changes(db) > 0;
        },
      }),
    );
  }

  async list(options: StoreCallOptions = {}): Promise<readonly SessionSummary[]> {
    throwIfAborted(options.signal);
    const { db } = await this.#open();
    const rows = this.#run(
      'list',
      // Rows are written only by this store, in this schema.
      () => db.prepare('SELECT * FROM ctxloom_sessions ORDER BY key').all() as SessionRow[],
    );
    return rows.map(sessionSummaryFromRow);
  }

  /** A cross-process lock file next to the database, one per session, held while the task runs. */
  async withSessionLock<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    this.#check(sessionKey, { operation: 'lock' });
    const hash = createHash('sha256').update(sessionKey).digest('hex').slice(0, 24);
    return withFileLock(
      { path: `${this.path}.${hash}.session.lock`, timeoutMs: 3_600_000, staleMs: 3_600_000 },
      task,
    );
  }

  subscribe(listener: MessageEventListener): () => void {
    return this.#listeners.add(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    const db = this.#db;
    this.#db = undefined;
    if (db !== undefined) (await db.catch(() => undefined))?.db.close();
  }

  async #update(
    { sessionKey, options }: { readonly sessionKey: string; readonly options: SessionUpdateOptions },
    change: (db: SqliteDatabase, row: SessionRow) => void,
  ): Promise<void> {
    this.#check(sessionKey, { ...options, operation: 'update' });
    const touching = {
      sessionKey,
      time: this.#now().toISOString(),
      preserve: options.preserveUpdatedAt === true,
    };
    const { db } = await this.#open();
    this.#run('update', () =>
      inTransaction(db, { mode: 'IMMEDIATE', task: () => change(db, touch(db, touching)) }),
    );
  }

  #check(sessionKey: string, call: { readonly operation: string; readonly signal?: AbortSignal }): void {
    throwIfAborted(call.signal);
    checkSessionKey(sessionKey, { backend: 'sqlite', operation: call.operation });
  }

  #open(): Promise<Open> {
    this.#db ??= (async () => {
      // Opening the file (a folder, no permission, a missing native driver) fails like any other step.
      const opened = await openSqliteDatabase({ path: this.path, driver: this.#driver }).catch(
        (error: unknown) => {
          throw this.#unavailable('open', error);
        },
      );
      return this.#run('open', () => {
        const { db } = opened;
        db.exec('PRAGMA journal_mode = WAL');
        db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(this.#busyTimeoutMs))}`);
        db.exec('PRAGMA synchronous = NORMAL');
        // Only a database that lacks something takes the write lock (many processes open one file).
        if (!isMigrated(db)) inTransaction(db, { mode: 'IMMEDIATE', task: () => migrate(db) });
        return opened;
      });
    })();
    return this.#db;
  }

  #run<T>(operation: string, task: () => T): T {
    try {
      return task();
    } catch (error) {
      throw this.#unavailable(operation, error);
    }
  }

  /** A driver error as `STORE_UNAVAILABLE` naming the file; ctxloom's own errors pass as they are. */
  #unavailable(operation: string, error: unknown): unknown {
    if (ContextError.isInstance(error)) return error;
    return new SessionStoreError({
      code: 'STORE_UNAVAILABLE',
      backend: 'sqlite',
      operation,
      message: `SQLite session store ${operation} failed on ${this.path}: ${error instanceof Error ? error.message : String(error)}.`,
      cause: error,
    });
  }
}

/** Creates the tables, adds the generation column to an older database, and creates the triggers. */
function migrate(db: SqliteDatabase): void {
  db.exec(SCHEMA);
  if (!hasGenerationColumn(db)) db.exec(ADD_GENERATION);
  db.exec(TRIGGERS);
}

/** True when the tables, the generation column and both triggers are there (read without a write lock). */
function isMigrated(db: SqliteDatabase): boolean {
  const found = db
    .prepare(
      `SELECT count(*) AS n FROM sqlite_master WHERE name IN
       ('ctxloom_sessions', 'ctxloom_messages', 'ctxloom_messages_deleted', 'ctxloom_messages_updated')`,
    )
    .get() as { n: number } | undefined;
  return found?.n === 4 && hasGenerationColumn(db);
}

function hasGenerationColumn(db: SqliteDatabase): boolean {
  const columns = db.prepare('PRAGMA table_info(ctxloom_sessions)').all() as { name: string }[];
  return columns.some((column) => column.name === 'generation');
}

/**
 * Creates the session row if needed (with a random generation, so a session deleted and made again
 * is never taken for the old one), sets `updated_at` (unless `preserve`: then only a new row gets
 * it), and returns the row (inside a transaction).
 */
function touch(
  db: SqliteDatabase,
  touching: { readonly sessionKey: string; readonly time: string; readonly preserve?: boolean },
): SessionRow {
  const updatedAt = touching.preserve === true ? 'ctxloom_sessions.updated_at' : 'excluded.updated_at';
  // RETURNING * yields the sessions row just written.
  return db
    .prepare(
      `INSERT INTO ctxloom_sessions (key, created_at, updated_at, generation)
       VALUES (?, ?, ?, random() & ${GENERATION_MASK})
       ON CONFLICT (key) DO UPDATE SET updated_at = ${updatedAt} RETURNING *`,
    )
    .get(touching.sessionKey, touching.time, touching.time) as SessionRow;
}

/** A new session's generation is random below 2^48: an exact JavaScript number for ever after. */
const GENERATION_MASK = 0xff_ffff_ffff_ff;

/** Rows changed by the last statement (both bindings expose SQLite's `changes()`). */
function changes(db: SqliteDatabase): number {
  const row = db.prepare('SELECT changes() AS n').get();
  return typeof row === 'object' && row !== null && 'n' in row && typeof row.n === 'number' ? row.n : 0;
}

function insertMessages(
  db: SqliteDatabase,
  batch: { readonly sessionKey: string; readonly start: number; readonly messages: readonly Message[] },
): void {
  const insert = db.prepare('INSERT INTO ctxloom_messages (session_key, seq, data) VALUES (?, ?, ?)');
  for (const [index, message] of batch.messages.entries()) {
    insert.run(batch.sessionKey, batch.start + index, JSON.stringify(message));
  }
}
