import type pg from 'pg';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { loadOptional } from '../sessions/load-optional.js';
import type { RecorderRecord } from './request-record.js';
import type { RequestRecordStore } from './request-record-store.js';

/** Options for {@link PostgresRequestStore}. */
export type PostgresRequestStoreOptions = {
  /** A `postgres://` URL. */
  readonly connectionString: string;
  /** The schema holding `ctxloom_requests` (created if missing); letters, digits and `_` only. @default 'public' */
  readonly schema?: string;
  /** Lines kept per session; older ones are deleted as new ones arrive. @default 5000 */
  readonly maxRecords?: number;
  /** Milliseconds to wait for a connection before failing with `STORE_UNAVAILABLE`. @default 5000 */
  readonly connectTimeoutMs?: number;
};

/** The keys of {@link PostgresRequestStoreOptions}, for `checkOptions`. @internal */
export const POSTGRES_REQUEST_STORE_OPTION_KEYS = {
  connectionString: true,
  schema: true,
  maxRecords: true,
  connectTimeoutMs: true,
} as const satisfies OptionKeys<PostgresRequestStoreOptions>;

/** Defaults of {@link PostgresRequestStoreOptions}. */
export const DEFAULT_POSTGRES_REQUEST_STORE = Object.freeze({
  schema: 'public',
  maxRecords: 5_000,
  connectTimeoutMs: 5_000,
});

/**
 * Request logs in a PostgreSQL table, `<schema>.ctxloom_requests (seq, session_key, record json)`,
 * for teams whose agents share sessions across servers. Each append deletes the session's rows beyond
 * the newest `maxRecords`. `pg` is imported on first use.
 */
export class PostgresRequestStore implements RequestRecordStore {
  readonly specificationVersion = 'v1';
  readonly id = 'postgres';
  readonly #options: Required<PostgresRequestStoreOptions>;
  #pool: Promise<pg.Pool> | undefined;

  constructor(options: PostgresRequestStoreOptions) {
    checkOptions(options, {
      where: 'new PostgresRequestStore options',
      known: POSTGRES_REQUEST_STORE_OPTION_KEYS,
    });
    this.#options = { ...DEFAULT_POSTGRES_REQUEST_STORE, ...options };
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(this.#options.schema)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `PostgresRequestStore schema ${JSON.stringify(this.#options.schema)} is not a plain identifier; use letters, digits and '_'.`,
      });
    }
    if (!Number.isInteger(this.#options.maxRecords) || this.#options.maxRecords < 1) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `PostgresRequestStore maxRecords must be a whole number ≥ 1, got ${this.#options.maxRecords}.`,
      });
    }
  }

  async append(record: RecorderRecord): Promise<void> {
    const table = this.#table();
    await this.#query('append', async (pool) => {
      await pool.query(`INSERT INTO ${table} (session_key, record) VALUES ($1, $2)`, [
        record.sessionKey,
        JSON.stringify(record),
      ]);
      await pool.query(
        `DELETE FROM ${table} WHERE session_key = $1 AND seq <= (
           SELECT seq FROM ${table} WHERE session_key = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`,
        [record.sessionKey, this.#options.maxRecords],
      );
    });
  }

  read(sessionKey: string): Promise<readonly RecorderRecord[]> {
    return this.#query('read', async (pool) => {
      const result = await pool.query<{ record: RecorderRecord }>(
        `SELECT record FROM ${this.#table()} WHERE session_key = $1 ORDER BY seq`,
        [sessionKey],
      );
      return result.rows.map((row) => row.record);
    });
  }

  listSessions(): Promise<readonly string[]> {
    return this.#query('list', async (pool) => {
      const result = await pool.query<{ key: string }>(
        `SELECT DISTINCT session_key AS key FROM ${this.#table()} ORDER BY session_key`,
      );
      return result.rows.map((row) => row.key);
    });
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool !== undefined) await (await pool.catch(() => undefined))?.end();
  }

  #table(): string {
    return `"${this.#options.schema}"."ctxloom_requests"`;
  }

  async #query<T>(operation: string, task: (pool: pg.Pool) => Promise<T>): Promise<T> {
    try {
      return await task(await this.#open());
    } catch (error) {
      if (ContextError.isInstance(error)) throw error;
      throw new ContextError({
        code: 'STORE_UNAVAILABLE',
        message: `PostgreSQL request store ${operation} failed: ${error instanceof Error ? error.message : String(error)}. Check the connection string and that the server is running.`,
        cause: error,
      });
    }
  }

  #open(): Promise<pg.Pool> {
    this.#pool ??= (async () => {
      const module = await loadOptional('pg', () => import('pg'), 'PostgresRequestStore');
      const pool = new module.default.Pool({
        connectionString: this.#options.connectionString,
        max: 2,
        connectionTimeoutMillis: this.#options.connectTimeoutMs,
      });
      pool.on('error', () => undefined);
      const schema = `"${this.#options.schema}"`;
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${this.#table()} (seq BIGSERIAL PRIMARY KEY, session_key TEXT NOT NULL, record JSON NOT NULL)`,
      );
      await pool.query(
        `CREATE INDEX IF NOT EXISTS ctxloom_requests_session ON ${this.#table()} (session_key, seq)`,
      );
      return pool;
    })();
    const opened = this.#pool;
    opened.catch(() => {
      if (this.#pool === opened) this.#pool = undefined;
    });
    return opened;
  }
}
