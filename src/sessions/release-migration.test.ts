import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, pgClient, pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { sessionFileName } from './session-file-name.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

/**
 * Session files, a SQLite database and PostgreSQL rows written by the release at 3ac5a02 (message
 * format 1), with what that release loaded from them (`expected.json`). The current stores must load
 * the same messages, and write the lines of an old file back byte for byte.
 */
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/release-3ac5a02', import.meta.url));
const KEY = 'cli:release';
const SCHEMA = `ctxloom_release_${process.pid}`;

type Expected = {
  readonly jsonl: unknown;
  readonly nanobot: unknown;
  readonly nanobotKey: string;
  readonly sqlite: unknown;
  readonly postgres: unknown;
};
type PostgresRows = {
  readonly sessions: readonly Record<string, string | number>[];
  readonly messages: readonly { session_key: string; seq: number; data: string }[];
};

let dir: string;
let expected: Expected;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-release-'));
  await cp(FIXTURES, dir, { recursive: true });
  expected = JSON.parse(await readFile(path.join(FIXTURES, 'expected.json'), 'utf8'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await pgQuery(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

async function messageLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '' && !line.includes('"_type"'));
}

describe('stores written by the release at 3ac5a02', () => {
  it('JSONL: loads the same messages from its files and nanobot files, and rewrites their lines unchanged', async () => {
    const store = new JsonlSessionStore({ dir: path.join(dir, 'jsonl') });
    expect((await store.load(KEY)).messages).toEqual(expected.jsonl);
    const nanobot = await store.load(expected.nanobotKey);
    expect(nanobot.messages).toEqual(expected.nanobot);
    for (const key of [KEY, expected.nanobotKey]) {
      const file = path.join(dir, 'jsonl', sessionFileName(key));
      const before = await messageLines(file);
      const { messages } = await store.load(key);
      await store.rewrite(key, { messages });
      // A rewrite leaves out the lines that hold no message (the nanobot fixture has three); the rest stay byte for byte.
      const after = await messageLines(file);
      expect(after).toHaveLength(messages.length);
      expect(after).toEqual(before.filter((line) => after.includes(line)));
    }
    await store.close();
  });

  it('SQLite: loads the same messages from its database', async () => {
    const store = new SqliteSessionStore({ path: path.join(dir, 'sessions.sqlite') });
    expect((await store.load(KEY)).messages).toEqual(expected.sqlite);
    await store.close();
  });

  it('PostgreSQL: loads the same messages from its rows', async (context) => {
    requirePostgres(context);
    const rows: PostgresRows = JSON.parse(await readFile(path.join(FIXTURES, 'postgres-rows.json'), 'utf8'));
    const setup = new PostgresSessionStore({ connectionString: PG_URL, schema: SCHEMA });
    await setup.list();
    await setup.close();
    const client = pgClient();
    await client.connect();
    try {
      for (const session of rows.sessions)
        await client.query(
          `INSERT INTO "${SCHEMA}".ctxloom_sessions (key, created_at, updated_at, metadata, last_consolidated, message_count) VALUES ($1, $2, $3, $4, $5, $6)`,
          [
            session['key'],
            session['created_at'],
            session['updated_at'],
            session['metadata'],
            session['last_consolidated'],
            session['message_count'],
          ],
        );
      for (const row of rows.messages)
        await client.query(
          `INSERT INTO "${SCHEMA}".ctxloom_messages (session_key, seq, data) VALUES ($1, $2, $3)`,
          [row.session_key, row.seq, row.data],
        );
    } finally {
      await client.end();
    }
    const store = new PostgresSessionStore({ connectionString: PG_URL, schema: SCHEMA });
    expect((await store.load(KEY)).messages).toEqual(expected.postgres);
    await store.close();
  });
});
