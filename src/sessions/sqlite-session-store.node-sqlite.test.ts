import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { describeSessionStoreContract } from '../testing/contracts/session-store-contract.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

// Runs where Node has node:sqlite (≥ 22.13; `vitest.node24.config.ts`); skipped on Node 20.
const dirs = new Set<string>();
const nodeHasSqlite = process.getBuiltinModule?.('node:sqlite') !== undefined;

async function freshPath(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-node-sqlite-'));
  dirs.add(dir);
  return path.join(dir, 'sessions.db');
}

afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs.clear();
});

describe.skipIf(!nodeHasSqlite)('SqliteSessionStore on node:sqlite', () => {
  describeSessionStoreContract({
    name: 'sqlite (node:sqlite)',
    repetitions: 2,
    create: async () => new SqliteSessionStore({ path: await freshPath(), driver: 'node:sqlite' }),
  });

  it("resolves 'auto' to node:sqlite, never loading better-sqlite3", async () => {
    const store = new SqliteSessionStore({ path: await freshPath() });
    expect(await store.driver()).toBe('node:sqlite');
    await store.append('k', [user('hi', { id: 'a' })]);
    expect((await store.load('k')).messages.map((message) => message.id)).toEqual(['a']);
    await store.close();
  });

  it('shares one database file between two store instances', async () => {
    const file = await freshPath();
    const writer = new SqliteSessionStore({ path: file, driver: 'node:sqlite' });
    const reader = new SqliteSessionStore({ path: file, driver: 'node:sqlite' });
    await Promise.all([
      writer.append('k', [user('a', { id: 'a' })]),
      reader.append('k', [user('b', { id: 'b' })]),
    ]);
    expect((await reader.load('k')).messages.map((message) => message.id).sort()).toEqual(['a', 'b']);
    await writer.close();
    await reader.close();
  });
});
