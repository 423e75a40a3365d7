import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { ContextError, SessionStoreError, throwIfAborted } from '../core/errors.js';
import type { Message, Metadata } from '../core/message.js';
import { withFileLock } from './file-lock.js';
import { ListenerSet } from './listener-set.js';
import { loadOptional } from './load-optional.js';
import { mergeMetadata } from './merge-metadata.js';
import { checkRewriteCount } from './rewrite-conflict.js';
import {
  parseMessageRow,
  parseMetadataColumn,
  type SessionRow,
  sessionRecordFromRow,
  sessionSummaryFromRow,
} from './session-row.js';
import type {
  MessageEventListener,
  SessionRecord,
  SessionRewrite,
  SessionStore,
  SessionSummary,
  StoreCallOptions,
} from './session-store.js';
import { emptySessionRecord } from './session-store.js';
import { clampLastConsolidated, stampMessage } from './stamp-message.js';

/** Options for {@link SqliteSessionStore}. */
export type SqliteSessionStoreOptions = {
  /** The database file (created if missing); one database holds many sessions. */
  readonly path: string;
  /** How long a writer waits for another process's write lock. @default 10000 */
  readonly busyTimeoutMs?: number;
  /** The clock for timestamps. @default the system clock */
  readonly now?: () => Date;
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ctxloom_sessions (
  key TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}', last_consolidated INTEGER NOT NULL DEFAULT 0,
  message_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS ctxloom_messages (
  session_key TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (session_key, seq)) WITHOUT ROWID;`;

/**
 * A {@link SessionStore} in one SQLite database on better-sqlite3 12 (loaded on first use), in WAL
 * mode with a busy timeout, so several processes on one machine can share it. Each append is one
 * `BEGIN IMMEDIATE` transaction that numbers the messages after the session's current count, so
 * concurrent writers never lose or interleave a batch. Events reach this object's subscribers only.
 */
export class SqliteSessionStore implements SessionStore {
  readonly specificationVersion = 'v1';
  readonly id = 'sqlite';
  /** The database file. */
  readonly path: string;
  readonly #listeners = new ListenerSet();
  readonly #now: () => Date;
  readonly #busyTimeoutMs: number;
  #db: Promise<BetterSqlite3.Database> | undefined;

  constructor(options: SqliteSessionStoreOptions) {
    this.path = options.path;
    this.#now = options.now ?? (() => new Date());
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  }

  async append(
    sessionKey: string,
    messages: readonly Message[],
    options: StoreCallOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    if (messages.length === 0) return;
    const time = this.#now().toISOString();
    const stamped = messages.map((message) => stampMessage(message, time));
    const db = await this.#open();
    this.#run('append', () =>
      db
        .transaction(() => {
          const count = this.#touch(db, { sessionKey, time }).message_count;
          insertMessages(db, { sessionKey, start: count, messages: stamped });
          db.prepare('UPDATE ctxloom_sessions SET message_count = ? WHERE key = ?').run(
            count + stamped.length,
            sessionKey,
          );
        })
        .immediate(),
    );
    for (const message of stamped) this.#listeners.emit({ type: 'message-appended', sessionKey, message });
  }

  async load(sessionKey: string, options: StoreCallOptions = {}): Promise<SessionRecord> {
    throwIfAborted(options.signal);
    const db = await this.#open();
    return this.#run('load', () =>
      db
        .transaction(() => {
          const row = db.prepare('SELECT * FROM ctxloom_sessions WHERE key = ?').get(sessionKey) as
            | SessionRow
            | undefined;
          if (row === undefined) {
            return emptySessionRecord(sessionKey);
          }
          const rows = db
            .prepare('SELECT data FROM ctxloom_messages WHERE session_key = ? ORDER BY seq')
            .all(sessionKey) as { data: string }[];
          return sessionRecordFromRow(
            row,
            rows.map((entry) => parseMessageRow(entry.data, { backend: 'sqlite', key: sessionKey })),
          );
        })
        .deferred(),
    );
  }

  async setMetadata(sessionKey: string, patch: Metadata, options: StoreCallOptions = {}): Promise<void> {
    await this.#update(sessionKey, options, (db, row) => {
      const metadata = JSON.stringify(mergeMetadata(parseMetadataColumn(row.metadata), patch));
      db.prepare('UPDATE ctxloom_sessions SET metadata = ? WHERE key = ?').run(metadata, sessionKey);
    });
  }

  async setLastConsolidated(
    sessionKey: string,
    value: number,
    options: StoreCallOptions = {},
  ): Promise<void> {
    await this.#update(sessionKey, options, (db, row) => {
      const clamped = clampLastConsolidated(value, row.message_count);
      db.prepare('UPDATE ctxloom_sessions SET last_consolidated = ? WHERE key = ?').run(clamped, sessionKey);
    });
  }

  async rewrite(sessionKey: string, rewrite: SessionRewrite, options: StoreCallOptions = {}): Promise<void> {
    const time = this.#now().toISOString();
    const messages = rewrite.messages.map((message) => stampMessage(message, time));
    await this.#update(sessionKey, options, (db, row) => {
      checkRewriteCount(rewrite, { backend: 'sqlite', actual: row.message_count });
      db.prepare('DELETE FROM ctxloom_messages WHERE session_key = ?').run(sessionKey);
      insertMessages(db, { sessionKey, start: 0, messages });
      const last = clampLastConsolidated(rewrite.lastConsolidated ?? row.last_consolidated, messages.length);
      db.prepare('UPDATE ctxloom_sessions SET message_count = ?, last_consolidated = ? WHERE key = ?').run(
        messages.length,
        last,
        sessionKey,
      );
    });
  }

  async delete(sessionKey: string, options: StoreCallOptions = {}): Promise<boolean> {
    throwIfAborted(options.signal);
    const db = await this.#open();
    return this.#run('delete', () =>
      db
        .transaction(() => {
          db.prepare('DELETE FROM ctxloom_messages WHERE session_key = ?').run(sessionKey);
          return db.prepare('DELETE FROM ctxloom_sessions WHERE key = ?').run(sessionKey).changes > 0;
        })
        .immediate(),
    );
  }

  async list(options: StoreCallOptions = {}): Promise<readonly SessionSummary[]> {
    throwIfAborted(options.signal);
    const db = await this.#open();
    const rows = this.#run(
      'list',
      () => db.prepare('SELECT * FROM ctxloom_sessions ORDER BY key').all() as SessionRow[],
    );
    return rows.map(sessionSummaryFromRow);
  }

  /** A cross-process lock file next to the database, one per session, held while the task runs. */
  withSessionLock<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
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
    if (db !== undefined) (await db).close();
  }

  async #update(
    sessionKey: string,
    options: StoreCallOptions,
    change: (db: BetterSqlite3.Database, row: SessionRow) => void,
  ): Promise<void> {
    throwIfAborted(options.signal);
    const time = this.#now().toISOString();
    const db = await this.#open();
    this.#run('update', () =>
      db.transaction(() => change(db, this.#touch(db, { sessionKey, time }))).immediate(),
    );
  }

  /** Creates the session row if needed, sets `updated_at`, and returns the row (inside a transaction). */
  #touch(
    db: BetterSqlite3.Database,
    { sessionKey, time }: { readonly sessionKey: string; readonly time: string },
  ): SessionRow {
    return db
      .prepare(
        `INSERT INTO ctxloom_sessions (key, created_at, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET updated_at = excluded.updated_at RETURNING *`,
      )
      .get(sessionKey, time, time) as SessionRow;
  }

  #open(): Promise<BetterSqlite3.Database> {
    this.#db ??= (async () => {
      const module = await loadOptional(
        'better-sqlite3',
        () => import('better-sqlite3'),
        'SqliteSessionStore',
      );
      return this.#run('open', () => {
        const db = new module.default(this.path);
        db.pragma('journal_mode = WAL');
        db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.#busyTimeoutMs))}`);
        db.pragma('synchronous = NORMAL');
        db.exec(SCHEMA);
        return db;
      });
    })();
    return this.#db;
  }

  #run<T>(operation: string, task: () => T): T {
    try {
      return task();
    } catch (error) {
      if (ContextError.isInstance(error)) throw error;
      throw new SessionStoreError({
        code: 'STORE_UNAVAILABLE',
        backend: 'sqlite',
        operation,
        message: `SQLite session store ${operation} failed on ${this.path}: ${error instanceof Error ? error.message : String(error)}.`,
        cause: error,
      });
    }
  }
}

function insertMessages(
  db: BetterSqlite3.Database,
  batch: { readonly sessionKey: string; readonly start: number; readonly messages: readonly Message[] },
): void {
  const insert = db.prepare('INSERT INTO ctxloom_messages (session_key, seq, data) VALUES (?, ?, ?)');
  for (const [index, message] of batch.messages.entries()) {
    insert.run(batch.sessionKey, batch.start + index, JSON.stringify(message));
  }
}
