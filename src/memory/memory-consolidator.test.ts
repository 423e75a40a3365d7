import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { OpenAICompatibleChatModel } from '../llm/openai-compatible-chat-model.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { PostgresSessionStore } from '../sessions/postgres-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { SqliteSessionStore } from '../sessions/sqlite-session-store.js';
import { HistoryLog } from './history-log.js';
import { MemoryConsolidator, type MemoryConsolidatorOptions } from './memory-consolidator.js';

const PG_URL = process.env['CTXLOOM_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
let workspace: string;
let server: ScriptedOpenAIServer | undefined;
const now = () => new Date(2026, 2, 1, 12, 0);

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-consolidate-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

/** 12 long messages (~204 tokens each) then 8 short ones: one round archives the first 8. */
function conversation(): Message[] {
  const old = Array.from({ length: 12 }, (_, index) =>
    index % 2 === 0
      ? user(`old question ${index} ${'q'.repeat(780)}`, {
          id: `o${index}`,
          metadata: { timestamp: `2026-03-01T09:${String(index).padStart(2, '0')}:00` },
        })
      : assistant(`old answer ${index} ${'a'.repeat(780)}`, {
          id: `o${index}`,
          metadata: { timestamp: '2026-03-01T09:30:00' },
        }),
  );
  const recent = Array.from({ length: 8 }, (_, index) =>
    index % 2 === 0
      ? user(`new q${index}`, { id: `n${index}` })
      : assistant(`new a${index}`, { id: `n${index}` }),
  );
  return [...old, ...recent];
}

async function setup(script: readonly ScriptedReply[], extra: Partial<MemoryConsolidatorOptions> = {}) {
  server = await startScriptedOpenAIServer(script);
  const store = new MemorySessionStore();
  await store.append('cli:a', conversation());
  const model = new OpenAICompatibleChatModel({
    baseURL: server.baseURL,
    model: 'm',
    maxRetries: 2,
    retryBaseDelayMs: 1,
    timeoutMs: 200,
  });
  const consolidator = new MemoryConsolidator({
    workspace,
    store,
    model,
    contextWindowTokens: 3124,
    maxOutputTokens: 100,
    now,
    ...extra,
  });
  return { store, consolidator, history: new HistoryLog({ workspace, now }) };
}

async function expectNothingLost(store: MemorySessionStore): Promise<void> {
  expect((await store.load('cli:a')).messages.map((message) => message.id)).toEqual(
    conversation().map((message) => message.id),
  );
}

describe('MemoryConsolidator', () => {
  it('does nothing while the prompt is under the budget', async () => {
    const { consolidator, store } = await setup([], { contextWindowTokens: 100_000 });
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.status).toBe('under-budget');
    expect(server?.requests).toHaveLength(0);
    expect((await store.load('cli:a')).lastConsolidated).toBe(0);
  });

  it('archives the oldest turns up to a user boundary and stores the summary', async () => {
    const { consolidator, store, history } = await setup(
      [{ kind: 'reply', content: '- [durable] User asks many questions' }],
      {
        tools: [{ name: 'read_file', parameters: { type: 'object' } }],
        systemPrompt: ({ sessionKey }) => `You are nanobot. Session ${sessionKey}.`,
      },
    );
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.status).toBe('consolidated');
    expect(result.rounds).toEqual([
      { boundary: 8, outcome: { kind: 'summary', text: '- [durable] User asks many questions' } },
    ]);
    expect(result.estimateBefore).toBeGreaterThanOrEqual(result.budget);
    expect(result.estimateAfter).toBeLessThanOrEqual(result.target);
    const record = await store.load('cli:a');
    expect(record.lastConsolidated).toBe(8);
    expect(record.metadata['_last_summary']).toMatchObject({ text: '- [durable] User asks many questions' });
    expect(await history.read()).toEqual([
      {
        cursor: 1,
        timestamp: '2026-03-01 12:00',
        content: '- [durable] User asks many questions',
        sessionKey: 'cli:a',
      },
    ]);
    const request = server?.requests[0] as {
      messages: { role: string; content: string }[];
      tool_choice: string;
    };
    expect(request.tool_choice).toBe('none');
    expect(request.messages[0]).toEqual({ role: 'system', content: 'You are nanobot. Session cli:a.' });
    expect(request.messages.at(-1)?.content).toMatch(
      /^Write a memory overview of only the final 8 conversation messages/,
    );
    expect(request.messages.slice(1, -1).map((message) => message.content.slice(0, 14))).toContain(
      'old question 0',
    );
    await expectNothingLost(store);
  });

  it('retries a 500 and a 429 with Retry-After before summarising', async () => {
    const { consolidator, history } = await setup([
      { kind: 'status', status: 500 },
      { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      { kind: 'reply', content: '- [permanent] fact' },
    ]);
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.rounds[0]?.outcome).toEqual({ kind: 'summary', text: '- [permanent] fact' });
    expect((await history.read()).map((entry) => entry.content)).toEqual(['- [permanent] fact']);
  });

  it.each<[string, ScriptedReply[]]>([
    ['a truncated reply', [{ kind: 'reply', content: '- [durable] half a fa', finishReason: 'length' }]],
    [
      'a tool-call reply',
      [
        {
          kind: 'reply',
          content: null,
          finishReason: 'tool_calls',
          toolCalls: [{ id: 'c', name: 'save_memory', arguments: '{}' }],
        },
      ],
    ],
    ['an empty reply', [{ kind: 'reply', content: '   ' }]],
    [
      'server errors after retries',
      [
        { kind: 'status', status: 500 },
        { kind: 'status', status: 502 },
        { kind: 'status', status: 503 },
      ],
    ],
    ['a timeout', [{ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }]],
  ])('falls back to a raw archive on %s and still advances the pointer', async (_name, script) => {
    const { consolidator, store, history } = await setup(script);
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.rounds).toHaveLength(1);
    expect(result.rounds[0]?.outcome.kind).toBe('raw');
    const record = await store.load('cli:a');
    expect(record.lastConsolidated).toBe(8);
    expect(record.metadata['_last_summary']).toBeUndefined();
    const entries = await history.read();
    expect(entries).toHaveLength(1);
    const lines = entries[0]?.content.split('\n') ?? [];
    expect(lines[0]).toBe('[RAW] 8 messages');
    expect(lines[1]).toMatch(/^\[2026-03-01T09:00\] USER: old question 0 q+$/);
    expect(lines[2]).toMatch(/^\[2026-03-01T09:30\] ASSISTANT: old answer 1 a+$/);
    expect(entries[0]?.sessionKey).toBe('cli:a');
    await expectNothingLost(store);
    expect(server?.pending()).toBe(0);
  });

  it('writes nothing for (nothing) but still advances the pointer', async () => {
    const { consolidator, store, history } = await setup([{ kind: 'reply', content: ' (nothing) ' }]);
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.rounds[0]?.outcome).toEqual({ kind: 'nothing' });
    expect(await history.read()).toEqual([]);
    expect((await store.load('cli:a')).lastConsolidated).toBe(8);
    expect((await store.load('cli:a')).metadata['_last_summary']).toBeUndefined();
  });

  it('keeps going after (nothing) and stops at maxRounds, boundaries only on user turns', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '(nothing)' },
      { kind: 'reply', content: '(nothing)' },
      { kind: 'reply', content: '(nothing)' },
    ]);
    const store = new MemorySessionStore();
    const long = Array.from({ length: 30 }, (_, index) =>
      index % 2 === 0
        ? user(`q${index} ${'q'.repeat(800)}`, { id: `m${index}` })
        : assistant(`a${index} ${'a'.repeat(800)}`, { id: `m${index}` }),
    );
    await store.append('cli:a', long);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 });
    const consolidator = new MemoryConsolidator({
      workspace,
      store,
      model,
      contextWindowTokens: 7124,
      maxOutputTokens: 100,
      consolidationRatio: 0.25,
      maxRounds: 2,
    });
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.rounds.map((round) => round.outcome.kind)).toEqual(['nothing', 'nothing']);
    const boundaries = result.rounds.map((round) => round.boundary);
    for (const boundary of boundaries) expect(long[boundary]?.role).toBe('user');
    expect(boundaries[1]).toBeGreaterThan(boundaries[0] ?? 0);
    expect((await store.load('cli:a')).lastConsolidated).toBe(boundaries[1]);
    expect(result.estimateAfter).toBeGreaterThan(result.target);
    expect(server.pending()).toBe(1);
  });

  it('appends paragraphs to memory/HISTORY.md in legacy mode', async () => {
    const { consolidator } = await setup([{ kind: 'reply', content: '- [durable] legacy fact' }], {
      historyFormat: 'legacy-markdown',
    });
    await consolidator.maybeConsolidate('cli:a');
    expect(await readFile(path.join(workspace, 'memory', 'HISTORY.md'), 'utf8')).toBe(
      '[2026-03-01 12:00] - [durable] legacy fact\n\n',
    );
  });

  it('archives the whole tail of idle sessions and skips fresh and dream sessions', async () => {
    const { consolidator, store, history } = await setup(
      [{ kind: 'reply', content: '- [durable] idle summary' }],
      {
        contextWindowTokens: 100_000,
      },
    );
    await store.append('dream:20260301-000000', [user('dream', { id: 'd' })]);
    const updatedAt = (await store.load('cli:a')).updatedAt ?? '';
    const later = new Date(Date.parse(updatedAt) + 16 * 60_000);
    const results = await consolidator.consolidateIdle({ idleAfterMs: 15 * 60_000, now: later });
    expect(results).toEqual([
      { sessionKey: 'cli:a', outcome: { kind: 'summary', text: '- [durable] idle summary' } },
    ]);
    const record = await store.load('cli:a');
    expect(record.lastConsolidated).toBe(20);
    expect(record.metadata['_last_summary']).toEqual({
      text: '- [durable] idle summary',
      last_active: updatedAt,
    });
    expect((await history.read()).map((entry) => entry.content)).toEqual(['- [durable] idle summary']);
    expect(await consolidator.consolidateIdle({ idleAfterMs: 15 * 60_000, now: later })).toEqual([]);
    await expectNothingLost(store);
  });

  it.each(['jsonl', 'sqlite', 'postgres'] as const)(
    'lets only one of two workers archive a %s session (cross-process session lock)',
    async (backend) => {
      server = await startScriptedOpenAIServer([{ kind: 'reply', content: '- [durable] once' }]);
      const schema = `ctxloom_lock_${process.pid}_${Math.floor(performance.now())}`;
      const open = (): SessionStore =>
        backend === 'jsonl'
          ? new JsonlSessionStore({ dir: path.join(workspace, 'sessions') })
          : backend === 'sqlite'
            ? new SqliteSessionStore({ path: path.join(workspace, 'db.sqlite') })
            : new PostgresSessionStore({ connectionString: PG_URL, schema });
      const stores = [open(), open()];
      await stores[0]?.append('cli:a', conversation());
      const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 });
      const workers = stores.map(
        (store) =>
          new MemoryConsolidator({
            workspace,
            store,
            model,
            contextWindowTokens: 3124,
            maxOutputTokens: 100,
            now,
          }),
      );
      const results = await Promise.all(workers.map((worker) => worker.maybeConsolidate('cli:a')));
      expect(results.map((result) => result.status).sort()).toEqual(['consolidated', 'under-budget']);
      expect(server.requests).toHaveLength(1);
      expect((await new HistoryLog({ workspace }).read()).map((entry) => entry.content)).toEqual([
        '- [durable] once',
      ]);
      for (const store of stores) await store.close();
      if (backend === 'postgres') {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    },
  );

  it('rejects a ratio outside 0.1–0.95', () => {
    const store = new MemorySessionStore();
    const model = new OpenAICompatibleChatModel({ baseURL: 'http://127.0.0.1:1/v1', model: 'm' });
    expect(
      () =>
        new MemoryConsolidator({
          workspace,
          store,
          model,
          contextWindowTokens: 1,
          maxOutputTokens: 1,
          consolidationRatio: 1,
        }),
    ).toThrow(/between 0.1 and 0.95/);
  });
});
