import type pg from 'pg';

/** The two tables of a schema, quoted: `"schema"."ctxloom_sessions"` / `"schema"."ctxloom_messages"`. */
export type TableName = (name: 'sessions' | 'messages') => string;

/** The statement triggers that bump a session's generation, with the transition tables they see. */
const TRIGGERS = [
  ['DELETE', 'OLD TABLE AS ctxloom_old_rows'],
  ['UPDATE', 'OLD TABLE AS ctxloom_old_rows NEW TABLE AS ctxloom_new_rows'],
] as const;

/**
 * Creates the schema and tables if missing. Runs under a transaction-scoped advisory lock, because
 * `CREATE … IF NOT EXISTS` from two processes at once can still collide in the catalogue.
 */
export async function migrate(
  pool: pg.Pool,
  { schema, table }: { readonly schema: string; readonly table: (name: 'sessions' | 'messages') => string },
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
      message_count INTEGER NOT NULL DEFAULT 0, generation BIGINT NOT NULL DEFAULT 0)`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table('messages')} (
      session_key TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_key, seq))`);
    // Tables made before the generation column get it; every change to a message row, by any
    // writer, bumps its session's generation (what lets a store read only the rows appended since).
    await client.query(
      `ALTER TABLE ${table('sessions')} ADD COLUMN IF NOT EXISTS generation BIGINT NOT NULL DEFAULT 0`,
    );
    await client.query(`CREATE OR REPLACE FUNCTION "${schema}".ctxloom_bump_generation() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP = 'UPDATE' THEN
          UPDATE ${table('sessions')} SET generation = generation + 1 WHERE key IN
            (SELECT session_key FROM ctxloom_old_rows UNION SELECT session_key FROM ctxloom_new_rows);
        ELSE
          UPDATE ${table('sessions')} SET generation = generation + 1 WHERE key IN
            (SELECT session_key FROM ctxloom_old_rows);
        END IF;
        RETURN NULL;
      END $$`);
    for (const [event, tables] of TRIGGERS) {
      const name = `ctxloom_messages_${event.toLowerCase()}d`;
      const found = await client.query(
        'SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = $2::regclass',
        [name, table('messages')],
      );
      if (found.rowCount === 0)
        await client.query(`CREATE TRIGGER ${name} AFTER ${event} ON ${table('messages')}
          REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".ctxloom_bump_generation()`);
    }
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
