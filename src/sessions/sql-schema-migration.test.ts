import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, PG_URL, pgClient, pgQuery } from '../../test/helpers/pg-test-server.js';
import { user } from '../core/factories.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { openSqliteDatabase } from './sqlite-driver.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

/** The tables as ctxloom made them before the generation column and its triggers. */
const OLD_TABLES = (sessions: string, messages: string) => [
  `CREATE TABLE ${sessions} (key TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}', last_consolidated INTEGER NOT NULL DEFAULT 0,
    message_count INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE ${messages} (session_key TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_key, seq))`,
  `INSERT INTO ${sessions} (key, created_at, updated_at, message_count) VALUES ('old', 't0', 't0', 1)`,
  `INSERT INTO ${messages} (session_key, seq, data) VALUES ('old', 0, '{"id":"m0","role":"user","content":"kept"}')`,
];

const edited = JSON.stringify(user('edited by hand', { id: 'm0' }));

describe('SqliteSessionStore on a database made before the generation column', () => {
  it('adds the column and the triggers, keeps the stored session, and sees a later edit made by hand', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-sql-migrate-'));
    const file = path.join(dir, 'db.sqlite');
    try {
      const raw = await openSqliteDatabase({ path: file, driver: 'auto' });
      for (const statement of OLD_TABLES('ctxloom_sessions', 'ctxloom_messages')) raw.db.exec(statement);
      const store = new SqliteSessionStore({ path: file });
      expect((await store.load('old')).messages.map((message) => message.content)).toEqual(['kept']);
      await store.append('old', [user('new', { id: 'm1' })]);
      expect((await store.load('old')).messages.map((message) => message.content)).toEqual(['kept', 'new']);
      raw.db.prepare('UPDATE ctxloom_messages SET data = ? WHERE seq = 0').run(edited);
      expect((await store.load('old')).messages.map((message) => message.content)).toEqual([
        'edited by hand',
        'new',
      ]);
      await store.close();
      raw.db.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const schema = `ctxloom_migrate_${process.pid}`;
afterAll(async () => {
  await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

describeWithPostgres('PostgresSessionStore on tables made before the generation column', () => {
  it('adds the column and the triggers, keeps the stored session, and sees a later edit made by hand', async () => {
    const client = pgClient();
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      const table = (name: string) => `"${schema}"."ctxloom_${name}"`;
      for (const statement of OLD_TABLES(table('sessions'), table('messages'))) await client.query(statement);
      const store = new PostgresSessionStore({ connectionString: PG_URL, schema });
      expect((await store.load('old')).messages.map((message) => message.content)).toEqual(['kept']);
      await store.append('old', [user('new', { id: 'm1' })]);
      expect((await store.load('old')).messages.map((message) => message.content)).toEqual(['kept', 'new']);
      await client.query(`UPDATE ${table('messages')} SET data = $1 WHERE seq = 0`, [edited]);
      expect((await store.load('old')).messages.map((message) => message.content)).toEqual([
        'edited by hand',
        'new',
      ]);
      // A second store opening the migrated schema finds it as it is (no duplicate column or trigger).
      const again = new PostgresSessionStore({ connectionString: PG_URL, schema });
      expect((await again.load('old')).messages).toHaveLength(2);
      await again.close();
      await store.close();
    } finally {
      await client.end();
    }
  });
});
