import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { describeSessionStoreContract } from '../testing/contracts/session-store-contract.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

// Under Node 20 only better-sqlite3 runs; `sqlite-session-store.node-sqlite.test.ts` covers node:sqlite on Node 24.
const dirs = new Map<object, string>();
const nodeHasSqlite = process.getBuiltinModule?.('node:sqlite') !== undefined;

async function freshPath(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-sqlite-'));
  return path.join(dir, 'sessions.db');
}

afterEach(async () => {
  for (const dir of dirs.values()) await rm(dir, { recursive: true, force: true });
  dirs.clear();
});

describe.skipIf(nodeHasSqlite)('SqliteSessionStore on better-sqlite3', () => {
  describeSessionStoreContract({
    name: 'sqlite (better-sqlite3)',
    repetitions: 2,
    create: async () => {
      const file = await freshPath();
      const store = new SqliteSessionStore({ path: file, driver: 'better-sqlite3' });
      dirs.set(store, path.dirname(file));
      return store;
    },
  });

  it("resolves 'auto' to better-sqlite3 where Node has no node:sqlite", async () => {
    const file = await freshPath();
    dirs.set({}, path.dirname(file));
    const store = new SqliteSessionStore({ path: file });
    expect(await store.driver()).toBe('better-sqlite3');
    await store.append('k', [user('hi', { id: 'a' })]);
    expect((await store.load('k')).messages.map((message) => message.id)).toEqual(['a']);
    await store.close();
  });

  it("refuses driver 'node:sqlite' with DEPENDENCY_MISSING naming the Node version it needs", async () => {
    const store = new SqliteSessionStore({ path: await freshPath(), driver: 'node:sqlite' });
    dirs.set(store, path.dirname(store.path));
    await expect(store.load('k')).rejects.toMatchObject({
      code: 'DEPENDENCY_MISSING',
      message: expect.stringContaining('needs Node 22.13 or later'),
    });
    await store.close();
  });
});
