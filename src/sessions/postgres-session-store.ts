// Over 300 lines: one class per the SessionStore contract; schema setup and LISTEN live in their own files.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError, SessionStoreError, throwIfAborted } from '../core/errors.js';
import type { Message, Metadata } from '../core/message.js';
import { checkSessionKey } from './check-session-key.js';
import { firstIndexOf, lastMessagesOf } from './last-messages.js';
import { ListenerSet } from './listener-set.js';
import { loadOptional } from './load-optional.js';
import { mergeMetadata } from './merge-metadata.js';
import { PostgresNotifier } from './postgres-notifier.js';
import { migrate, parseNotification } from './postgres-schema.js';
import { checkRewriteCount } from './rewrite-conflict.js';
import { rewriteTimes } from './rewrite-times.js';
import {
  parseMessageRow,
  parseMetadataColumn,
  type SessionRow,
  sessionSummaryFromRow,
} from './session-row.js';
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
import { clampLastConsolidated, stampMessage } from './stamp-message.js';

/** Options for {@link PostgresSessionStore}. */
export type PostgresSessionStoreOptions = {
  /** A `postgres://` connection string. */
  readonly connectionString: string;
  /** The schema holding the tables (created if missing); letters, digits and `_` only. @default 'public' */
  readonly schema?: string;
  /** Connections in the pool. @default 4 */
  readonly maxConnections?: number;
  /** The clock for timestamps. @default the system clock */
  readonly now?: () => Date;
  /**
   * Characters of stored message text kept parsed from past loads, so a session loaded every turn
   * reads only its new rows (the session loaded last is always kept; 0 turns this off). @default 64 Mi
   */
  readonly cachedSessionChars?: number;
};

/** The keys of {@link PostgresSessionStoreOptions}, for `checkOptions`. @internal */
export const POSTGRES_SESSION_STORE_OPTION_KEYS = {
  connectionString: true,
  schema: true,
  maxConnections: true,
  now: true,
  cachedSessionChars: true,
} as const satisfies OptionKeys<PostgresSessionStoreOptions>;

/**
 * A {@link SessionStore} in PostgreSQL on `pg` (loaded on first use), for several servers sharing
 * sessions. Each append is one transaction that upserts the session row (taking its row lock, so
 * concurrent appends to one session from any number of processes are serialised) and numbers the
 * messages after the current count. After commit, a `NOTIFY` on channel `ctxloom_<schema>` tells every
 * other store instance, which loads the new rows and emits {@link MessageEvent}s to its subscribers:
 * events cross processes and servers.
 */
export class PostgresSessionStore implements SessionStore {
  readonly specificationVersion = 'v1';
  readonly id = 'postgres';
  readonly #listeners = new ListenerSet();
  readonly #options: PostgresSessionStoreOptions;
  readonly #schema: string;
  readonly #now: () => Date;
  readonly #origin = randomUUID();
  readonly #reads: SessionRowReads;
  #pool: Promise<pg.Pool> | undefined;
  #notifier: PostgresNotifier | undefined;

  constructor(options: PostgresSessionStoreOptions) {
    checkOptions(options, {
      where: 'new PostgresSessionStore options',
      known: POSTGRES_SESSION_STORE_OPTION_KEYS,
    });
    const schema = options.schema ?? 'public';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(schema)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `PostgresSessionStore schema ${JSON.stringify(schema)} is not a plain identifier; use letters, digits and '_' (at most 41 characters).`,
      });
    }
    this.#options = options;
    this.#schema = schema;
    this.#now = options.now ?? (() => new Date());
    this.#reads = new SessionRowReads({
      backend: 'postgres',
      maxChars: options.cachedSessionChars ?? DEFAULT_CACHED_SESSION_CHARS,
    });
  }

  /** The NOTIFY channel this store's instances share. */
  get channel(): string {
    return `ctxloom_${this.#schema.toLowerCase()}`;
  }

  async append(
    sessionKey: string,
    messages: readonly Message[],
    options: StoreCallOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'postgres', operation: 'append' });
    if (messages.length === 0) return;
    const time = this.#now().toISOString();
    const stamped = messages.map((message) => stampMessage(message, time));
    await this.#transaction('append', async (client) => {
      const count = (await this.#touch(client, { sessionKey, time })).message_count;
      await client.query(
        `INSERT INTO ${this.#table('messages')} (session_key, seq, data)
         SELECT $1, $2::int + ord - 1, data FROM unnest($3::text[]) WITH ORDINALITY AS t(data, ord)`,
        [sessionKey, count, stamped.map((message) => JSON.stringify(message))],
      );
      await client.query(`UPDATE ${this.#table('sessions')} SET message_count = $2 WHERE key = $1`, [
        sessionKey,
        count + stamped.length,
      ]);
      const payload = JSON.stringify({ o: this.#origin, k: sessionKey, f: count, t: count + stamped.length });
      if (Buffer.byteLength(payload) < 7900)
        await client.query('SELECT pg_notify($1, $2)', [this.channel, payload]);
    });
    for (const message of stamped) this.#listeners.emit({ type: 'message-appended', sessionKey, message });
  }

  async load(sessionKey: string, options: SessionLoadOptions = {}): Promise<SessionRecord> {
    throwIfAborted(options.signal);
    const where = { backend: 'postgres', operation: 'load' };
    checkSessionKey(sessionKey, where);
    const lastMessages = lastMessagesOf(options.lastMessages, where);
    return this.#transaction('load', async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const found = await client.query<SessionRow>(
        `SELECT * FROM ${this.#table('sessions')} WHERE key = $1`,
        [sessionKey],
      );
      const row = found.rows[0];
      if (row === undefined) {
        this.#reads.forget(sessionKey);
        return emptySessionRecord(sessionKey);
      }
      const select = async (from: number) => ({
        from,
        rows: await this.#rows(client, { key: sessionKey, from }),
      });
      return (
        this.#reads.record(row, {
          selected: await select(this.#reads.firstRow(row, lastMessages)),
          lastMessages,
        }) ??
        this.#reads.read(row, {
          selected: await select(firstIndexOf(row.message_count, lastMessages)),
          lastMessages,
        })
      );
    });
  }

  async setMetadata(sessionKey: string, patch: Metadata, options: SessionUpdateOptions = {}): Promise<void> {
    await this.#update({ sessionKey, options }, async (client, row) => {
      const metadata = JSON.stringify(mergeMetadata(parseMetadataColumn(row.metadata), patch));
      await client.query(`UPDATE ${this.#table('sessions')} SET metadata = $2 WHERE key = $1`, [
        sessionKey,
        metadata,
      ]);
    });
  }

  async setLastConsolidated(
    sessionKey: string,
    value: number,
    options: SessionUpdateOptions = {},
  ): Promise<void> {
    await this.#update({ sessionKey, options }, async (client, row) => {
      const clamped = clampLastConsolidated(value, row.message_count);
      await client.query(`UPDATE ${this.#table('sessions')} SET last_consolidated = $2 WHERE key = $1`, [
        sessionKey,
        clamped,
      ]);
    });
  }

  async rewrite(sessionKey: string, rewrite: SessionRewrite, options: StoreCallOptions = {}): Promise<void> {
    const times = rewriteTimes(rewrite, this.#now().toISOString());
    const messages = rewrite.messages.map((message) => stampMessage(message, times.updatedAt));
    await this.#update({ sessionKey, options }, async (client, row) => {
      checkRewriteCount(rewrite, { backend: 'postgres', actual: row.message_count });
      await client.query(`DELETE FROM ${this.#table('messages')} WHERE session_key = $1`, [sessionKey]);
      await client.query(
        `INSERT INTO ${this.#table('messages')} (session_key, seq, data)
         SELECT $1, ord - 1, data FROM unnest($2::text[]) WITH ORDINALITY AS t(data, ord)`,
        [sessionKey, messages.map((message) => JSON.stringify(message))],
      );
      const last = clampLastConsolidated(rewrite.lastConsolidated ?? row.last_consolidated, messages.length);
      await client.query(
        `UPDATE ${this.#table('sessions')} SET message_count = $2, last_consolidated = $3,
         created_at = coalesce($4, created_at), updated_at = coalesce($5, updated_at) WHERE key = $1`,
        [sessionKey, messages.length, last, times.createdAt ?? null, rewrite.updatedAt ?? null],
      );
    });
  }

  async delete(sessionKey: string, options: StoreCallOptions = {}): Promise<boolean> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'postgres', operation: 'delete' });
    return this.#transaction('delete', async (client) => {
      await client.query(`DELETE FROM ${this.#table('messages')} WHERE session_key = $1`, [sessionKey]);
      const result = await client.query(`DELETE FROM ${this.#table('sessions')} WHERE key = $1`, [
        sessionKey,
      ]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  async list(options: StoreCallOptions = {}): Promise<readonly SessionSummary[]> {
    throwIfAborted(options.signal);
    return this.#transaction('list', async (client) => {
      const result = await client.query<SessionRow>(
        `SELECT * FROM ${this.#table('sessions')} ORDER BY key COLLATE "C"`,
      );
      return result.rows.map(sessionSummaryFromRow);
    });
  }

  /**
   * A session-level advisory lock (`pg_advisory_lock(hashtext(schema), hashtext(key))`) held on one
   * connection while the task runs: exclusive across every process and server using this database.
   */
  async withSessionLock<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    checkSessionKey(sessionKey, { backend: 'postgres', operation: 'lock' });
    const keys = [this.#schema, sessionKey];
    let client: pg.PoolClient;
    try {
      client = await (await this.#open()).connect();
    } catch (error) {
      throw this.#error('lock', error);
    }
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', keys);
    } catch (error) {
      client.release(true);
      throw this.#error('lock', error);
    }
    try {
      return await task();
    } finally {
      const unlocked = await client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', keys).then(
        () => true,
        () => false,
      );
      // A connection whose unlock failed is destroyed, which releases its session locks.
      client.release(!unlocked);
    }
  }

  subscribe(listener: MessageEventListener): () => void {
    const unsubscribe = this.#listeners.add(listener);
    this.#notifier ??= new PostgresNotifier({
      pool: () => this.#pool ?? this.#open(),
      channel: this.channel,
      onNotification: (payload) => this.#onNotification(payload),
    });
    return unsubscribe;
  }

  /** The server pid of the LISTEN connection (after the first `subscribe`); for diagnostics. */
  async listenerPid(): Promise<number | undefined> {
    return this.#notifier?.backendPid();
  }

  /** Resolves once cross-process notifications are being received (after the first `subscribe`). */
  async ready(): Promise<void> {
    await this.#open();
    await this.#notifier?.ready();
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    const notifier = this.#notifier;
    this.#notifier = undefined;
    await notifier?.close();
    const pool = this.#pool;
    this.#pool = undefined;
    const resolved = await pool?.catch(() => undefined);
    await resolved?.end();
  }

  async #onNotification(payload: string): Promise<void> {
    const parsed = parseNotification(payload);
    if (parsed === undefined || parsed.o === this.#origin || this.#listeners.size === 0) return;
    const messages = await this.#transaction('notify', (client) =>
      this.#messages(client, { key: parsed.k, from: parsed.f, to: parsed.t }),
    );
    for (const message of messages)
      this.#listeners.emit({ type: 'message-appended', sessionKey: parsed.k, message });
  }

  async #messages(
    client: pg.PoolClient,
    range: { readonly key: string; readonly from: number; readonly to?: number },
  ): Promise<Message[]> {
    const rows = await this.#rows(client, range);
    return rows.map((row) => parseMessageRow(row.data, { backend: 'postgres', key: range.key }));
  }

  async #rows(
    client: pg.PoolClient,
    range: { readonly key: string; readonly from: number; readonly to?: number },
  ): Promise<MessageRow[]> {
    const result = await client.query<MessageRow>(
      `SELECT seq, data FROM ${this.#table('messages')} WHERE session_key = $1 AND seq >= $2 AND ($3::int IS NULL OR seq < $3)
       ORDER BY seq`,
      [range.key, range.from, range.to ?? null],
    );
    return result.rows;
  }

  async #update(
    { sessionKey, options }: { readonly sessionKey: string; readonly options: SessionUpdateOptions },
    change: (client: pg.PoolClient, row: SessionRow) => Promise<void>,
  ): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'postgres', operation: 'update' });
    const touching = {
      sessionKey,
      time: this.#now().toISOString(),
      preserve: options.preserveUpdatedAt === true,
    };
    await this.#transaction('update', async (client) => change(client, await this.#touch(client, touching)));
  }

  /**
   * Upserts the session row (taking its row lock until commit), setting `updated_at` (unless
   * `preserve`: then only a new row gets it), and returns it.
   */
  async #touch(
    client: pg.PoolClient,
    touching: { readonly sessionKey: string; readonly time: string; readonly preserve?: boolean },
  ): Promise<SessionRow> {
    const updatedAt = touching.preserve === true ? 's.updated_at' : 'EXCLUDED.updated_at';
    const result = await client.query<SessionRow>(
      `INSERT INTO ${this.#table('sessions')} AS s (key, created_at, updated_at, generation)
       VALUES ($1, $2, $2, floor(random() * 281474976710656)::bigint)
       ON CONFLICT (key) DO UPDATE SET updated_at = ${updatedAt} RETURNING *`,
      [touching.sessionKey, touching.time],
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error('upsert returned no row');
    return row;
  }

  #table(name: 'sessions' | 'messages'): string {
    return `"${this.#schema}"."ctxloom_${name}"`;
  }

  async #transaction<T>(operation: string, task: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await (await this.#open()).connect();
    } catch (error) {
      throw this.#error(operation, error);
    }
    try {
      await client.query('BEGIN');
      const result = await task(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.#error(operation, error);
    } finally {
      client.release();
    }
  }

  #open(): Promise<pg.Pool> {
    this.#pool ??= (async () => {
      const module = await loadOptional('pg', () => import('pg'), 'PostgresSessionStore');
      const pool = new module.default.Pool({
        connectionString: this.#options.connectionString,
        max: this.#options.maxConnections ?? 4,
      });
      pool.on('error', () => undefined);
      try {
        await migrate(pool, { schema: this.#schema, table: (name) => this.#table(name) });
      } catch (error) {
        await pool.end().catch(() => undefined);
        throw this.#error('open', error);
      }
      return pool;
    })();
    return this.#pool;
  }

  #error(operation: string, error: unknown): ContextError {
    if (ContextError.isInstance(error)) return error;
    return new SessionStoreError({
      code: 'STORE_UNAVAILABLE',
      backend: 'postgres',
      operation,
      message: `PostgreSQL session store ${operation} failed: ${error instanceof Error ? error.message : String(error)}. Check the connection string and that the server is running.`,
      cause: error,
    });
  }
}
