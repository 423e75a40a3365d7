import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { PG_URL, pgQuery, requirePostgres } from '../../../test/helpers/pg-test-server.js';
import { user } from '../../core/index.js';
import { JsonlSessionStore } from '../../index.js';
import { main } from '../main.js';

/** Two sessions whose key order (the import order) is the opposite of their recency. */
const SOURCES = [
  { key: 'a:recent', createdAt: '2025-06-01T10:00:00.000Z', updatedAt: '2025-06-02T10:00:00.000Z' },
  { key: 'b:older', createdAt: '2025-01-01T10:00:00.000Z', updatedAt: '2025-01-02T10:00:00.000Z' },
] as const;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-import-times-'));
  await mkdir(path.join(dir, 'target'));
  for (const source of SOURCES) {
    let time: string = source.createdAt;
    const store = new JsonlSessionStore({ dir: path.join(dir, 'source'), now: () => new Date(time) });
    await store.append(source.key, [user(`hello from ${source.key}`)]);
    time = source.updatedAt;
    await store.setMetadata(source.key, { title: source.key });
    await store.close();
  }
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const schema = `ctxloom_import_times_${process.pid}`;
const TARGETS = [
  { name: 'JSONL', flags: () => ['--sessions', 'target'] },
  { name: 'SQLite', flags: () => ['--sqlite', 'target.db'] },
  { name: 'PostgreSQL', flags: () => ['--pg', PG_URL, '--pg-schema', schema] },
] as const;

describe('ctxloom session import keeps the source sessions’ times', () => {
  it.for(TARGETS)('into $name', async (target, context) => {
    if (target.name === 'PostgreSQL') requirePostgres(context);
    await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    try {
      const imported = memoryIo(dir);
      expect(await main(['session', 'import', 'source', ...target.flags()], imported), imported.err()).toBe(
        0,
      );
      const listed = memoryIo(dir);
      expect(await main(['session', 'list', '--json', ...target.flags()], listed)).toBe(0);
      const sessions = JSON.parse(listed.out()) as { key: string; createdAt: string; updatedAt: string }[];
      expect(sessions.map(({ key, createdAt, updatedAt }) => ({ key, createdAt, updatedAt }))).toEqual(
        SOURCES,
      );
      const shown = memoryIo(dir);
      await main(['session', 'show', 'b:older', '--json', ...target.flags()], shown);
      expect(JSON.parse(shown.out())).toMatchObject({
        createdAt: SOURCES[1].createdAt,
        updatedAt: SOURCES[1].updatedAt,
        metadata: { title: 'b:older' },
      });
    } finally {
      await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});
