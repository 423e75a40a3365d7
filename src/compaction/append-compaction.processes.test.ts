/**
 * Two processes compact the same span of one session at the same moment (each loads the session,
 * makes its record, waits for `go`, then calls appendCompaction) on JSONL, SQLite and PostgreSQL:
 * exactly one record is stored, the other process gets STORE_CONFLICT, the messages are untouched and
 * the lineage validates. Twice per store: over raw messages, then a chained compaction over the first
 * record.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../test/helpers/canonical-json.js';
import { pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import { type ProcessStoreBackend, processStoreBackends } from '../../test/helpers/process-store-backends.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
import { sessionCompactions, storedCompactions } from '../sessions/session-compactions.js';

const WORKER = fileURLToPath(
  new URL('../../test/fixtures/workers/append-compaction-worker.ts', import.meta.url),
);
const SCHEMA = `ctxloom_compact_race_${process.pid}`;

const MESSAGES: readonly Message[] = Array.from({ length: 12 }, (_, index) =>
  index % 2 === 0
    ? user(`question ${index / 2}`, { id: `u${index / 2}` })
    : assistant(`answer ${(index - 1) / 2}`, { id: `a${(index - 1) / 2}` }),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-compact-race-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await pgQuery(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

type Backend = ProcessStoreBackend;
const BACKENDS = processStoreBackends(() => dir, SCHEMA);

type Outcome = { readonly stored: true } | { readonly code: string; readonly message: string };

/** A worker that has loaded the session and made its record, waiting for `go`. */
async function startWorker(
  backend: Backend,
  run: { readonly key: string; readonly recordId: string; readonly count: number },
): Promise<{ readonly child: ChildProcessWithoutNullStreams; readonly outcome: Promise<Outcome> }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      WORKER,
      backend.name,
      backend.target(),
      run.key,
      SCHEMA,
      run.recordId,
      String(run.count),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const outcome = new Promise<Outcome>((resolve, reject) =>
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`worker exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.slice('ready\n'.length)) as Outcome);
    }),
  );
  await Promise.race([ready, outcome]);
  return { child, outcome };
}

/** Two workers compact the first `count` view items of `key` at once; returns their outcomes. */
async function race(
  backend: Backend,
  run: { readonly key: string; readonly count: number; readonly round: number },
): Promise<readonly Outcome[]> {
  const workers = await Promise.all(
    ['a', 'b'].map((name) =>
      startWorker(backend, { key: run.key, recordId: `r${run.round}-${name}`, count: run.count }),
    ),
  );
  for (const { child } of workers) child.stdin.end('go\n');
  return Promise.all(workers.map(({ outcome }) => outcome));
}

describe('appendCompaction from two processes at once', () => {
  it.for([...BACKENDS])(
    '$name: one record is stored, the other process gets STORE_CONFLICT, messages untouched',
    { timeout: 180_000 },
    async (backend, context) => {
      if (backend.name === 'postgres') requirePostgres(context);
      const key = `race:${backend.name}`;
      const store = backend.open();
      try {
        await store.append(key, MESSAGES);
        const before = canonicalJson((await store.load(key)).messages);
        for (const [round, count] of [
          [1, 6],
          [2, 3],
        ] as const) {
          const outcomes = await race(backend, { key, count, round });
          const stored = outcomes.filter((outcome) => 'stored' in outcome);
          const refused = outcomes.filter((outcome) => 'code' in outcome);
          expect(stored, JSON.stringify(outcomes)).toHaveLength(1);
          expect(refused).toEqual([
            expect.objectContaining({
              code: 'STORE_CONFLICT',
              message: expect.stringMatching(/covered-twice|unknown-id/),
            }),
          ]);
          const session = await store.load(key);
          expect(canonicalJson(session.messages)).toBe(before);
          const records = storedCompactions(session);
          expect(records).toHaveLength(round);
          expect(records.at(-1)?.id).toMatch(new RegExp(`^r${round}-[ab]$`));
          expect(validateCompactionLineage(session.messages, sessionCompactions(session))).toEqual([]);
        }
        const records = storedCompactions(await store.load(key));
        expect(records.map((record) => [record.depth, record.parents])).toEqual([
          [1, []],
          [2, [records[0]?.id]],
        ]);
      } finally {
        await store.close();
      }
    },
  );
});
