/**
 * Session store throughput: messages/s for single appends and batches of 100, per backend, and the
 * cost (ms, heap MB) of loading a 10,000-message session. PostgreSQL is measured when reachable
 * (CTXLOOM_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/test), in a throw-away schema.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { assistant, user } from '../src/core/index.js';
import {
  JsonlSessionStore,
  MemorySessionStore,
  type Message,
  PostgresSessionStore,
  type SessionStore,
  SqliteSessionStore,
} from '../src/index.js';
import { PG_URL, pgReachable } from './pg-reachable.js';

const SINGLE = 500;
const BATCHES = 20;
const BATCH_SIZE = 100;
const LOAD_SIZE = 10_000;

type Backend = { readonly name: string; readonly open: () => SessionStore };

function message(index: number): Message {
  const text = `message ${index}: ${'lorem ipsum dolor sit amet '.repeat(8)}`;
  return index % 2 === 0 ? user(text, { id: `m${index}` }) : assistant(text, { id: `m${index}` });
}

async function measure(backend: Backend): Promise<string[]> {
  const store = backend.open();
  let started = performance.now();
  for (let index = 0; index < SINGLE; index += 1) await store.append('single', [message(index)]);
  const single = SINGLE / ((performance.now() - started) / 1000);
  started = performance.now();
  for (let batch = 0; batch < BATCHES; batch += 1) {
    await store.append(
      'batched',
      Array.from({ length: BATCH_SIZE }, (_, index) => message(batch * BATCH_SIZE + index)),
    );
  }
  const batched = (BATCHES * BATCH_SIZE) / ((performance.now() - started) / 1000);
  for (let offset = 0; offset < LOAD_SIZE; offset += 1000) {
    await store.append(
      'big',
      Array.from({ length: 1000 }, (_, index) => message(offset + index)),
    );
  }
  await store.close();
  const fresh = backend.open();
  await fresh.load('warm-up');
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  started = performance.now();
  const record = await fresh.load('big');
  const loadMs = performance.now() - started;
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  if (record.messages.length !== LOAD_SIZE)
    throw new Error(`${backend.name} loaded ${record.messages.length} messages`);
  await fresh.close();
  const heap = globalThis.gc === undefined || heapMb < 0 ? 'n/a' : heapMb.toFixed(1);
  return [backend.name, single.toFixed(0), batched.toFixed(0), loadMs.toFixed(1), heap];
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-bench-sessions-'));
  const schema = `ctxloom_bench_${process.pid}`;
  const memory = new MemorySessionStore();
  const backends: Backend[] = [
    { name: 'memory', open: () => memory },
    { name: 'jsonl', open: () => new JsonlSessionStore({ dir: path.join(dir, 'sessions') }) },
    { name: 'sqlite', open: () => new SqliteSessionStore({ path: path.join(dir, 'sessions.db') }) },
  ];
  const hasPg = await pgReachable();
  if (hasPg)
    backends.push({
      name: 'postgres',
      open: () => new PostgresSessionStore({ connectionString: PG_URL, schema }),
    });
  const rows = [
    ['backend', 'single append msg/s', `batch(${BATCH_SIZE}) msg/s`, `load ${LOAD_SIZE} ms`, 'load heap MB'],
  ];
  try {
    for (const backend of backends) rows.push(await measure(backend));
  } finally {
    await rm(dir, { recursive: true, force: true });
    if (hasPg) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of rows)
    process.stdout.write(`${row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  ')}\n`);
  if (!hasPg) process.stdout.write(`postgres skipped: ${PG_URL} not reachable\n`);
  process.stdout.write(
    'load heap = heap growth of one load (run with NODE_OPTIONS=--expose-gc for a stable figure).\n',
  );
}
