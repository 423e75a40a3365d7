import type pg from 'pg';

/** The two tables of a schema, quoted: `"schema"."ctxloom_sessions"` / `"schema"."ctxloom_messages"`. */
export type TableName = (name: 'sessions' | 'messages') => string;

/**
 * Creates the schema and tables if missing. Runs under a transaction-scoped advisory lock, because
 * `CREATE … IF NOT EXISTS` from two processes at once can still collide in the catalogue.
 */
export async function migrate(
  pool: pg.Pool,
  schema: string,
  table: (name: 'sessions' | 'messages') => string,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Serialises concurrent first starts; CREATE ... IF NOT EXISTS alone races on the catalogue.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ctxloom:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table('sessions')} (
      key TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}', last_consolidated INTEGER NOT NULL DEFAULT 0,
      message_count INTEGER NOT NULL DEFAULT 0)`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table('messages')} (
      session_key TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_key, seq))`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export function parseNotification(
  payload: string,
): { o: string; k: string; f: number; t: number } | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value !== 'object' || value === null) return undefined;
    const { o, k, f, t } = value as Record<string, unknown>;
    if (typeof o !== 'string' || typeof k !== 'string' || typeof f !== 'number' || typeof t !== 'number')
      return undefined;
    return { o, k, f, t };
  } catch {
    return undefined;
  }
}
