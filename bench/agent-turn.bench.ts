/**
 * The work of an agent turn around the model call, through a session store, as a long-lived agent
 * that keeps nothing in memory does it: `loadReplayedSession`, a `forAgent` build, `saveTurn` of the
 * user message and the answer, and `maybeConsolidate` (under budget: the check every turn makes).
 * Per store (JSONL, SQLite, PostgreSQL when reachable) and history size (`--sizes`, default 1k, 10k,
 * 100k), on the generated agent corpus with exact o200k counts: the median of the turns after the
 * warm-up, and of each part. Not a test: nothing here fails on a slow machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChatModel, Message, SessionStore, TokenCounter } from '../src/index.js';
import { BUDGET_TOKENS, CORPUS_TOOLS, loadAgentCorpus } from './agent-corpus.js';
import { ctxloom, sessions } from './built.js';
import { benchSizes } from './case-process.js';
import { PG_URL, pgReachable } from './pg-reachable.js';

const WARMUP_TURNS = 10;
const TURNS = 40;
const CONTEXT_WINDOW_TOKENS = 128_000;
const PARTS = ['replay', 'build', 'save', 'consolidate'] as const;

type Part = (typeof PARTS)[number];
type Backend = { readonly name: string; readonly open: (folder: string) => SessionStore };

/** A model the consolidator never calls (every turn is under its budget); calling it is a bench bug. */
const UNUSED_MODEL: ChatModel = {
  specificationVersion: 'v1',
  id: 'unused',
  generate: () => Promise.reject(new Error('agent-turn bench: the consolidator called its model')),
};

export async function run(): Promise<void> {
  const backends: Backend[] = [
    {
      name: 'jsonl',
      open: (folder) => new ctxloom.JsonlSessionStore({ dir: path.join(folder, 'sessions') }),
    },
    {
      name: 'sqlite',
      open: (folder) => new ctxloom.SqliteSessionStore({ path: path.join(folder, 'sessions.db') }),
    },
  ];
  if (await pgReachable()) {
    const schema = `ctxloom_turn_${process.pid}`;
    backends.push({
      name: 'postgres',
      open: () => new ctxloom.PostgresSessionStore({ connectionString: PG_URL, schema }),
    });
  }
  process.stdout.write(
    `An agent turn around the model call (loadReplayedSession + forAgent build + saveTurn + maybeConsolidate under budget), exact o200k counts, node ${process.version}; medians of ${TURNS} turns after ${WARMUP_TURNS}, ms\n\n`,
  );
  process.stdout.write(
    `${'store'.padEnd(10)}${'messages'.padStart(9)}${'turn'.padStart(9)}${PARTS.map((part) => part.padStart(13)).join('')}\n`,
  );
  const exact = await ctxloom.TiktokenTokenCounter.create({ encoding: 'o200k_base' });
  for (const size of benchSizes()) {
    const history = await loadAgentCorpus(size);
    for (const backend of backends) {
      const figures = await measure(backend, { history, exact });
      process.stdout.write(
        `${backend.name.padEnd(10)}${String(size).padStart(9)}${figures.turn.toFixed(2).padStart(9)}${PARTS.map((part) => figures[part].toFixed(2).padStart(13)).join('')}\n`,
      );
    }
  }
}

async function measure(
  backend: Backend,
  run: { readonly history: readonly Message[]; readonly exact: TokenCounter },
): Promise<Record<Part | 'turn', number>> {
  const folder = await mkdtemp(path.join(tmpdir(), 'ctxloom-agent-turn-'));
  const store = backend.open(folder);
  const sessionKey = `bench:${process.pid}:${run.history.length}`;
  try {
    for (let from = 0; from < run.history.length; from += 5_000)
      await store.append(sessionKey, run.history.slice(from, from + 5_000));
    const budget = {
      tokenCounter: run.exact,
      contextWindowTokens: CONTEXT_WINDOW_TOKENS,
      maxOutputTokens: 8_192,
    };
    const builder = ctxloom.ContextBuilder.forAgent({
      workspace: folder,
      channel: 'cli',
      tokenCounter: run.exact,
      contextWindowTokens: CONTEXT_WINDOW_TOKENS,
      governor: { blockLimit: BUDGET_TOKENS },
      skills: { builtinDir: null },
      recentHistory: false,
    });
    const consolidator = new ctxloom.MemoryConsolidator({
      workspace: folder,
      store,
      model: UNUSED_MODEL,
      contextWindowTokens: 100 * CONTEXT_WINDOW_TOKENS,
      maxOutputTokens: 8_192,
      tokenCounter: run.exact,
    });
    const times: Record<Part | 'turn', number[]> = {
      turn: [],
      replay: [],
      build: [],
      save: [],
      consolidate: [],
    };
    for (let turn = 0; turn < WARMUP_TURNS + TURNS; turn += 1) {
      const current = `Follow-up ${turn}: 已完成?`;
      const parts = {
        replay: () => sessions.loadReplayedSession(store, { sessionKey, ...budget }),
        build: (replayed: Awaited<ReturnType<typeof sessions.loadReplayedSession>>) =>
          builder.build({
            history: replayed.history,
            ...(replayed.summary === undefined ? {} : { summary: replayed.summary }),
            current,
            tools: CORPUS_TOOLS,
            sessionKey,
          }),
        save: () =>
          ctxloom.saveTurn(
            store,
            sessionKey,
            [ctxloom.msg.user(current), ctxloom.msg.assistant(`Answer ${turn}.`)],
            {
              initialLength: 0,
            },
          ),
        consolidate: () => consolidator.maybeConsolidate(sessionKey),
      };
      const started = performance.now();
      const replayed = await timed(parts.replay, times.replay);
      await timed(() => parts.build(replayed), times.build);
      await timed(parts.save, times.save);
      const consolidation = await timed(parts.consolidate, times.consolidate);
      if (consolidation.status !== 'under-budget')
        throw new Error(`agent-turn bench: ${consolidation.status}`);
      times.turn.push(performance.now() - started);
    }
    const median = (list: number[]) =>
      list.slice(WARMUP_TURNS).sort((left, right) => left - right)[TURNS >> 1] ?? Number.NaN;
    return {
      turn: median(times.turn),
      replay: median(times.replay),
      build: median(times.build),
      save: median(times.save),
      consolidate: median(times.consolidate),
    };
  } finally {
    await store.delete(sessionKey).catch(() => false);
    await store.close();
    await rm(folder, { recursive: true, force: true });
  }
}

async function timed<TValue>(call: () => Promise<TValue>, times: number[]): Promise<TValue> {
  const started = performance.now();
  const value = await call();
  times.push(performance.now() - started);
  return value;
}
