import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import { type ProcessStoreBackend, processStoreBackends } from '../../test/helpers/process-store-backends.js';

const WORKER = fileURLToPath(
  new URL('../../test/fixtures/workers/session-append-worker.ts', import.meta.url),
);
const SCHEMA = `ctxloom_proc_${process.pid}`;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-proc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await pgQuery(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

type Backend = ProcessStoreBackend;
const BACKENDS = processStoreBackends(() => dir, SCHEMA);

function startWorker(backend: Backend, args: { key: string; count: number; prefix: string }): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      WORKER,
      backend.name,
      backend.target(),
      args.key,
      String(args.count),
      args.prefix,
      SCHEMA,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe.each(BACKENDS)('$name store across processes', (backend) => {
  beforeEach((context) => {
    if (backend.name === 'postgres') requirePostgres(context);
  });
  it('keeps every acknowledged message when the writer is killed with SIGKILL', async () => {
    const key = `crash:${backend.name}`;
    const child = startWorker(backend, { key, count: 100_000, prefix: 'c' });
    const done = finished(child);
    let acked = -1;
    await new Promise<void>((resolve) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        for (const match of chunk.toString().matchAll(/ack (\d+)/g))
          acked = Math.max(acked, Number(match[1]));
        if (acked >= 150) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    const result = await done;
    expect(result.stdout).not.toContain('done');
    const store = backend.open();
    await store.append(key, []);
    const record = await store.load(key);
    const ids = record.messages.map((message) => message.id);
    expect(ids.length).toBeGreaterThanOrEqual(acked + 1);
    expect(ids.slice(0, acked + 1)).toEqual(Array.from({ length: acked + 1 }, (_, index) => `c-${index}`));
    await store.append(key, [{ id: 'after', role: 'user', content: 'after restart' }]);
    expect((await store.load(key)).messages.at(-1)?.id).toBe('after');
    await store.close();
  }, 120_000);

  it('keeps all 2,000 messages when two processes append 1,000 each', async () => {
    const key = `race:${backend.name}`;
    const results = await Promise.all([
      finished(startWorker(backend, { key, count: 1000, prefix: 'a' })),
      finished(startWorker(backend, { key, count: 1000, prefix: 'b' })),
    ]);
    for (const result of results) expect(result.stderr).toBe('');
    const store = backend.open();
    const record = await store.load(key);
    await store.close();
    expect(record.warnings).toEqual([]);
    const ids = record.messages.map((message) => message.id);
    expect(ids).toHaveLength(2000);
    expect(new Set(ids).size).toBe(2000);
    for (const prefix of ['a', 'b']) {
      expect(ids.filter((id) => id.startsWith(`${prefix}-`))).toEqual(
        Array.from({ length: 1000 }, (_, index) => `${prefix}-${index}`),
      );
    }
    for (const message of record.messages) expect(message.content).toMatch(/^message [ab]-\d+ x*$/);
  }, 180_000);
});
