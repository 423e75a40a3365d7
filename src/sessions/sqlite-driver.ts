import { ContextError } from '../core/errors.js';
import { loadOptional } from './load-optional.js';

/** Which SQLite binding {@link SqliteSessionStore} uses. `auto`: `node:sqlite` when Node has it, else better-sqlite3. */
export type SqliteDriverChoice = 'auto' | 'node:sqlite' | 'better-sqlite3';

/** The binding a store resolved to. */
export type SqliteDriverName = Exclude<SqliteDriverChoice, 'auto'>;

/** A value SQLite accepts as a parameter. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** A prepared statement; better-sqlite3's and node:sqlite's both fit. */
export type SqliteStatement = {
  run(...params: SqlValue[]): unknown;
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
};

/** The synchronous database handle the store needs; better-sqlite3's `Database` and node:sqlite's `DatabaseSync` both fit. */
export type SqliteDatabase = {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  close(): unknown;
};

type DatabaseConstructor = new (path: string) => SqliteDatabase;

/**
 * Opens a database file with the chosen binding. `node:sqlite` is built into Node ≥ 22.13 (no native
 * build); better-sqlite3 is an optional dependency loaded on first use.
 * @throws ContextError `DEPENDENCY_MISSING` when the chosen binding is not available here.
 */
export async function openSqliteDatabase(options: {
  readonly path: string;
  readonly driver: SqliteDriverChoice;
}): Promise<{ readonly db: SqliteDatabase; readonly driver: SqliteDriverName }> {
  const builtin = options.driver === 'better-sqlite3' ? undefined : nodeSqlite();
  if (builtin !== undefined) return { db: new builtin(options.path), driver: 'node:sqlite' };
  if (options.driver === 'node:sqlite') {
    throw new ContextError({
      code: 'DEPENDENCY_MISSING',
      message: `SqliteSessionStore driver 'node:sqlite' needs Node 22.13 or later (this is Node ${process.version}); use driver 'better-sqlite3' or 'auto'.`,
      details: { package: 'node:sqlite' },
    });
  }
  const module = await loadOptional('better-sqlite3', () => import('better-sqlite3'), 'SqliteSessionStore');
  // better-sqlite3's Database has exec/prepare/close with compatible signatures.
  const BetterSqlite = module.default as unknown as DatabaseConstructor;
  return { db: new BetterSqlite(options.path), driver: 'better-sqlite3' };
}

/**
 * Runs `task` in one transaction (`BEGIN IMMEDIATE` takes the write lock up front, so concurrent
 * writers queue on the busy timeout instead of failing to upgrade); rolls back if it throws.
 */
export function inTransaction<T>(
  db: SqliteDatabase,
  options: { readonly mode: 'IMMEDIATE' | 'DEFERRED'; readonly task: () => T },
): T {
  db.exec(`BEGIN ${options.mode}`);
  let result: T;
  try {
    result = options.task();
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (e.g. after SQLITE_FULL); the original error is what matters.
    }
    throw error;
  }
  db.exec('COMMIT');
  return result;
}

function nodeSqlite(): DatabaseConstructor | undefined {
  const module: unknown = process.getBuiltinModule?.('node:sqlite');
  if (typeof module !== 'object' || module === null || !('DatabaseSync' in module)) return undefined;
  // node:sqlite's DatabaseSync has exec/prepare/close with compatible signatures.
  return typeof module.DatabaseSync === 'function' ? (module.DatabaseSync as DatabaseConstructor) : undefined;
}
