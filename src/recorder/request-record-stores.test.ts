import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlRequestStore } from './jsonl-request-store.js';
import { PostgresRequestStore } from './postgres-request-store.js';
import type { RecorderRecord } from './request-record.js';
import type { RequestRecordStore } from './request-record-store.js';
import { SqliteRequestStore } from './sqlite-request-store.js';

const PG_URL = process.env['CTXLOOM_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

function usage(sessionKey: string, index: number, padding = 0): RecorderRecord {
  return {
    type: 'usage',
    version: 1,
    requestId: `r${index}`,
    at: '2026-01-01T00:00:00.000Z',
    sessionKey,
    inputTokens: index,
    ...(padding === 0 ? {} : { model: 'm'.repeat(padding) }),
  };
}

let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(tmpdir(), 'ctxloom-request-stores-'));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('JsonlRequestStore', () => {
  it('keeps at most two generations of maxBytes and always the newest lines, in order', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 300 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 200, max: 2_000 }),
        async (paddings, maxBytes) => {
          run += 1;
          const dir = path.join(temp, `jsonl-${run}`);
          const store = new JsonlRequestStore({ dir, maxBytes, maxRecords: 1_000 });
          for (const [index, padding] of paddings.entries()) await store.append(usage('k', index, padding));
          const kept = await store.read('k');
          const indexes = kept.map((record) => (record.type === 'usage' ? record.inputTokens : -1));
          // the newest lines, oldest first, ending with the last one appended
          expect(indexes).toEqual(paddings.map((_, index) => index).slice(paddings.length - kept.length));
          let bytes = 0;
          for (const name of await readdir(dir)) bytes += (await stat(path.join(dir, name))).size;
          const longest = Math.max(
            ...paddings.map((padding) => JSON.stringify(usage('k', 99, padding)).length + 1),
          );
          expect(bytes).toBeLessThanOrEqual(2 * Math.max(maxBytes, longest));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('rotates by record count and lists its sessions', async () => {
    const store = new JsonlRequestStore({ dir: path.join(temp, 'count'), maxRecords: 3 });
    for (let index = 0; index < 10; index += 1) await store.append(usage('a:b', index));
    await store.append(usage('other', 0));
    expect((await store.read('a:b')).length).toBeLessThanOrEqual(6);
    expect((await store.read('a:b')).at(-1)).toMatchObject({ requestId: 'r9' });
    expect(await store.listSessions()).toEqual(['a:b', 'other']);
    expect(await store.read('missing')).toEqual([]);
  });

  it('rejects limits below 1', () => {
    expect(() => new JsonlRequestStore({ dir: temp, maxBytes: 0 })).toThrow(
      /maxBytes must be a whole number/,
    );
  });
});

async function checkDatabaseStore(store: RequestRecordStore): Promise<void> {
  const key = `key-${store.id}`;
  for (let index = 0; index < 8; index += 1) await store.append(usage(key, index));
  await store.append(usage(`${key}-2`, 0));
  const kept = await store.read(key);
  expect(kept.map((record) => (record.type === 'usage' ? record.requestId : ''))).toEqual([
    'r3',
    'r4',
    'r5',
    'r6',
    'r7',
  ]);
  expect(kept[0]).toEqual(usage(key, 3));
  expect(await store.listSessions()).toEqual(expect.arrayContaining([key, `${key}-2`]));
  await store.close();
}

describe('SqliteRequestStore', () => {
  it('keeps the newest maxRecords lines per session', async () => {
    await checkDatabaseStore(new SqliteRequestStore({ path: path.join(temp, 'requests.db'), maxRecords: 5 }));
  });
});

const pgAvailable = await new PostgresRequestStore({ connectionString: PG_URL, connectTimeoutMs: 1_000 })
  .listSessions()
  .then(
    () => true,
    () => false,
  );

describe.skipIf(!pgAvailable)('PostgresRequestStore', () => {
  it('keeps the newest maxRecords lines per session', async () => {
    const schema = `recorder_test_${process.pid}`;
    await checkDatabaseStore(new PostgresRequestStore({ connectionString: PG_URL, schema, maxRecords: 5 }));
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA "${schema}" CASCADE`);
    await client.end();
  });
});

describe('PostgresRequestStore without a server', () => {
  it('fails fast with STORE_UNAVAILABLE', async () => {
    const store = new PostgresRequestStore({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectTimeoutMs: 500,
    });
    await expect(store.read('k')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await store.close();
  });
});
