/**
 * The cost of a turn's replay load for a compacted session: 10,000 messages with one compaction record
 * over the first 9,000. `loadReplayedSession` (which loads only from the first message the view needs)
 * against a whole load replayed the same way (what it did before), from a fresh store (cold: a new
 * process's first turn) and from the same store again (warm: a long-lived agent's next turn), per
 * backend; the two alternate run by run, medians reported. Run with
 * `npx tsx bench/compacted-replay-load.ts` (PostgreSQL when reachable).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { assistant, user } from '../src/core/index.js';
import {
  appendCompaction,
  type CompactionRecord,
  EstimatingTokenCounter,
  getHistory,
  JsonlSessionStore,
  loadReplayedSession,
  type Message,
  PostgresSessionStore,
  type SessionStore,
  SqliteSessionStore,
  sessionCompactions,
  sessionView,
} from '../src/index.js';
import { replayBudget } from '../src/sessions/index.js';
import { PG_URL, pgReachable } from './pg-reachable.js';

const COUNT = 10_000;
const COMPACTED = 9_000;
const RUNS = 15;
const KEY = 'compacted';
const SCHEMA = `ctxloom_bench_compacted_${process.pid}`;

function message(index: number): Message {
  const text = `message ${index}: ${'lorem ipsum dolor sit amet '.repeat(8)}`;
  return index % 2 === 0 ? user(text, { id: `m${index}` }) : assistant(text, { id: `m${index}` });
}

const RECORD: CompactionRecord = {
  id: 'r1',
  kind: 'summary',
  replaces: Array.from({ length: COMPACTED }, (_, index) => `m${index}`),
  summary: { id: 's1', role: 'user', content: 'The first 9,000 messages, summarised.' },
  depth: 1,
  parents: [],
  producer: { strategy: 'bench' },
  tokensBefore: 900_000,
  tokensAfter: 10,
  trigger: 'manual',
  createdAt: '2026-12-07T00:00:00Z',
};

const REPLAY = {
  sessionKey: KEY,
  tokenCounter: new EstimatingTokenCounter(),
  contextWindowTokens: 200_000,
  maxOutputTokens: 8_000,
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(name: string, open: () => SessionStore): Promise<void> {
  const writer = open();
  for (let offset = 0; offset < COUNT; offset += 1_000)
    await writer.append(
      KEY,
      Array.from({ length: 1_000 }, (_, index) => message(offset + index)),
    );
  await appendCompaction(writer, { sessionKey: KEY, record: RECORD });
  await writer.close();
  const times = {
    partial: { cold: [] as number[], warm: [] as number[] },
    whole: { cold: [] as number[], warm: [] as number[] },
  };
  const loaded = { partial: 0, whole: 0 };
  let replayed = 0;
  for (let run = 0; run < RUNS; run += 1) {
    for (const mode of run % 2 === 0 ? (['partial', 'whole'] as const) : (['whole', 'partial'] as const)) {
      const store = open();
      let started = performance.now();
      const first = await replay(store, mode);
      times[mode].cold.push(performance.now() - started);
      started = performance.now();
      await replay(store, mode);
      times[mode].warm.push(performance.now() - started);
      loaded[mode] = first.loaded;
      replayed = first.replayed;
      await store.close();
    }
  }
  for (const mode of ['whole', 'partial'] as const)
    process.stdout.write(
      `${name.padEnd(9)} ${mode.padEnd(8)} cold ${median(times[mode].cold).toFixed(1).padStart(7)} ms  warm ${median(times[mode].warm).toFixed(1).padStart(7)} ms  (${loaded[mode]} messages loaded, ${replayed} replayed)\n`,
    );
}

/** One turn's replay: `loadReplayedSession`, or (before) the whole session loaded and its view replayed. */
async function replay(
  store: SessionStore,
  mode: 'partial' | 'whole',
): Promise<{ readonly loaded: number; readonly replayed: number }> {
  if (mode === 'partial') {
    const { record, history } = await loadReplayedSession(store, REPLAY);
    return { loaded: record.messages.length, replayed: history.length };
  }
  await store.load(KEY, { lastMessages: 2_000 });
  const whole = await store.load(KEY);
  const view = { messages: sessionView(whole.messages, sessionCompactions(whole)), lastConsolidated: 0 };
  const history = getHistory(view, { maxTokens: replayBudget(REPLAY), tokenCounter: REPLAY.tokenCounter });
  return { loaded: whole.messages.length, replayed: history.length };
}

const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-bench-compacted-'));
try {
  await measure('jsonl', () => new JsonlSessionStore({ dir: path.join(dir, 'sessions') }));
  await measure('sqlite', () => new SqliteSessionStore({ path: path.join(dir, 'db.sqlite') }));
  if (await pgReachable()) {
    try {
      await measure('postgres', () => new PostgresSessionStore({ connectionString: PG_URL, schema: SCHEMA }));
    } finally {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
      await client.end();
    }
  } else process.stdout.write(`postgres  skipped: not reachable at ${PG_URL}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
