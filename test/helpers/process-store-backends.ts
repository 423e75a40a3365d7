import path from 'node:path';
import { JsonlSessionStore } from '../../src/sessions/jsonl-session-store.js';
import { PostgresSessionStore } from '../../src/sessions/postgres-session-store.js';
import type { SessionStore } from '../../src/sessions/session-store.js';
import { SqliteSessionStore } from '../../src/sessions/sqlite-session-store.js';
import { PG_URL } from './pg-test-server.js';

/** A store a worker process opens by `name` and `target` (see test/fixtures/workers/). */
export type ProcessStoreBackend = {
  readonly name: 'jsonl' | 'sqlite' | 'postgres';
  readonly target: () => string;
  readonly open: () => SessionStore;
};

/**
 * The stores shared across processes: JSONL and SQLite under the folder `dir()` gives (read when a
 * store is opened, so it may be made in `beforeAll`), PostgreSQL in `schema` of the test server.
 */
export function processStoreBackends(dir: () => string, schema: string): readonly ProcessStoreBackend[] {
  return [
    {
      name: 'jsonl',
      target: () => path.join(dir(), 'sessions'),
      open: () => new JsonlSessionStore({ dir: path.join(dir(), 'sessions') }),
    },
    {
      name: 'sqlite',
      target: () => path.join(dir(), 'db.sqlite'),
      open: () => new SqliteSessionStore({ path: path.join(dir(), 'db.sqlite') }),
    },
    {
      name: 'postgres',
      target: () => PG_URL,
      open: () => new PostgresSessionStore({ connectionString: PG_URL, schema }),
    },
  ];
}
