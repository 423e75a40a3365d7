import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PG_URL, pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import {
  closedServerURL,
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ChatModel } from '../llm/chat-model.js';
import { ChatModelError } from '../llm/chat-model-error.js';
import { OpenAICompatibleChatModel } from '../llm/openai-compatible-chat-model.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { PostgresSessionStore } from '../sessions/postgres-session-store.js';
import type { SessionLoadOptions, SessionRecord, SessionStore } from '../sessions/session-store.js';
import { SqliteSessionStore } from '../sessions/sqlite-session-store.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { HistoryLog } from './history-log.js';
import { MemoryConsolidator } from './memory-consolidator.js';
import type { MemoryConsolidatorOptions } from './memory-consolidator-options.js';

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
    // Short only when the script hangs, so a slow machine never turns another case into a timeout.
    timeoutMs: script.some((reply) => reply.kind === 'hang') ? 300 : 5000,
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

async function snapshot(store: MemorySessionStore): Promise<unknown> {
  const record = await store.load('cli:a');
  const history = await readFile(path.join(workspace, 'memory', 'history.jsonl'), 'utf8').catch(
    () => 'absent',
  );
  return { lastConsolidated: record.lastConsolidated, metadata: record.metadata, history };
}

/** A 2,000-message session many archive requests long (window 4,000), for the scripted server already started. */
async function backlogSetup() {
  const store = new MemorySessionStore();
  const backlog = Array.from({ length: 2000 }, (_, index) =>
    index % 2 === 0 ? user(`question ${index}`) : assistant(`answer ${index}`),
  );
  await store.append('cli:a', backlog);
  const model = new OpenAICompatibleChatModel({ baseURL: server?.baseURL ?? '', model: 'm', maxRetries: 0 });
  const consolidator = new MemoryConsolidator({
    workspace,
    store,
    model,
    contextWindowTokens: 4000,
    maxOutputTokens: 200,
    maxRounds: Number.POSITIVE_INFINITY,
    now,
  });
  return { store, backlog, consolidator };
}

/** A store that always loads every message, whatever `lastMessages` asks. */
class WholeLoads extends MemorySessionStore {
  override load(sessionKey: string, options: SessionLoadOptions = {}): Promise<SessionRecord> {
    const { lastMessages: _all, ...rest } = options;
    return super.load(sessionKey, rest);
  }
}

const times = (count: number, reply: ScriptedReply): ScriptedReply[] =>
  Array.from({ length: count }, () => reply);

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
      { start: 0, end: 8, outcome: { kind: 'summary', text: '- [durable] User asks many questions' } },
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
    ['server errors', times(3, { kind: 'status', status: 503 })],
    ['429 after retries', times(3, { kind: 'status', status: 429, headers: { 'retry-after': '0' } })],
    ['timeouts', times(3, { kind: 'hang' })],
    ['reset connections', times(3, { kind: 'reset' })],
    ['truncated JSON bodies', times(3, { kind: 'truncated' })],
  ])('raw-archives the turns on %s, advances the pointer and reports degraded', async (_name, script) => {
    const { consolidator, store, history } = await setup(script);
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.status).toBe('degraded');
    expect(result.rounds).toHaveLength(1);
    const outcome = result.rounds[0]?.outcome;
    expect(outcome).toMatchObject({ kind: 'raw', entries: 1, failure: { kind: 'transient', attempts: 3 } });
    const record = await store.load('cli:a');
    expect(record.lastConsolidated).toBe(8);
    expect(record.metadata['_last_summary']).toBeUndefined();
    const entries = await history.read();
    expect(entries).toHaveLength(1);
    const lines = entries[0]?.content.split('\n') ?? [];
    expect(lines[0]).toBe('[RAW] 8 messages');
    expect(lines[1]).toMatch(/^\[2026-03-01T09:00\] USER: old question 0 q+$/);
    expect(lines[2]).toMatch(/^\[2026-03-01T09:30\] ASSISTANT: old answer 1 a+$/);
    expect(lines).toHaveLength(9);
    expect(entries[0]?.sessionKey).toBe('cli:a');
    await expectNothingLost(store);
    expect(server?.pending()).toBe(0);
  });

  it.each<[string, ScriptedReply, string]>([
    ['401', { kind: 'status', status: 401 }, 'HTTP 401'],
    ['403', { kind: 'status', status: 403 }, 'HTTP 403'],
    ['404', { kind: 'status', status: 404 }, 'HTTP 404'],
  ])('changes nothing and throws a configuration error on %s', async (_name, reply, text) => {
    const { consolidator, store } = await setup([reply]);
    const before = await snapshot(store);
    const error = await consolidator.maybeConsolidate('cli:a').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MODEL_REQUEST_FAILED', kind: 'configuration', attempts: 1 });
    expect(String(error)).toContain(text);
    expect(String(error)).toContain('Nothing was archived; cli:a stays archived up to message 0.');
    expect(await snapshot(store)).toEqual(before);
    await expectNothingLost(store);
  });

  it('changes nothing when nothing listens at the model URL', async () => {
    const store = new MemorySessionStore();
    await store.append('cli:a', conversation());
    const model = new OpenAICompatibleChatModel({
      baseURL: await closedServerURL(),
      model: 'm',
      maxRetries: 2,
    });
    const consolidator = new MemoryConsolidator({
      workspace,
      store,
      model,
      contextWindowTokens: 3124,
      maxOutputTokens: 100,
    });
    const before = await snapshot(store);
    await expect(consolidator.maybeConsolidate('cli:a')).rejects.toMatchObject({
      kind: 'configuration',
      reason: 'connection-refused',
    });
    expect(await snapshot(store)).toEqual(before);
  });

  it.each<[string, ScriptedReply, string]>([
    [
      'a reply cut at the output limit',
      { kind: 'reply', content: '- [durable] half a fa', finishReason: 'length' },
      'length',
    ],
    [
      'a content-filtered reply',
      { kind: 'reply', content: '- [durable] partial', finishReason: 'content_filter' },
      'content-filter',
    ],
    [
      'a reply with no finish reason',
      { kind: 'reply', content: '- [durable] maybe whole', finishReason: null },
      'no-finish-reason',
    ],
    [
      'a reasoning-only reply',
      { kind: 'reply', content: '<think>The user asks about…</think>' },
      'reasoning-only',
    ],
    [
      'an unclosed reasoning reply',
      { kind: 'reply', content: '<think>The user asks about' },
      'reasoning-only',
    ],
    [
      'reasoning_content and no text',
      { kind: 'reply', content: '', reasoning: 'Let me think' },
      'reasoning-only',
    ],
    ['an empty reply', { kind: 'reply', content: '   ' }, 'empty'],
    [
      'a tool-call reply',
      {
        kind: 'reply',
        content: null,
        finishReason: 'tool_calls',
        toolCalls: [{ id: 'c', name: 'save_memory', arguments: '{}' }],
      },
      'tool-calls',
    ],
  ])('changes nothing and throws on %s', async (_name, reply, reason) => {
    const { consolidator, store } = await setup([reply]);
    const before = await snapshot(store);
    const error = await consolidator.maybeConsolidate('cli:a').catch((caught: unknown) => caught);
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SUMMARISER_FAILED', kind: 'unusable-reply', reason });
    expect(String(error)).toContain('summary of cli:a messages 0–8 is not usable');
    expect(await snapshot(store)).toEqual(before);
    await expectNothingLost(store);
  });

  it('keeps the answer of a reply that also reasons', async () => {
    const { consolidator, history } = await setup([
      {
        kind: 'reply',
        content: '<think>what matters?</think>\n- [durable] The answer',
        reasoning: 'more thoughts',
      },
    ]);
    await consolidator.maybeConsolidate('cli:a');
    expect((await history.read()).map((entry) => entry.content)).toEqual(['- [durable] The answer']);
  });

  it("archives an unusable reply raw with unusableReply: 'raw-archive' (nanobot's behaviour)", async () => {
    const { consolidator, store, history } = await setup(
      [{ kind: 'reply', content: 'cut', finishReason: 'length' }],
      { unusableReply: 'raw-archive' },
    );
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.rounds[0]?.outcome).toMatchObject({ kind: 'raw', failure: { reason: 'length' } });
    expect((await store.load('cli:a')).lastConsolidated).toBe(8);
    expect((await history.read())[0]?.content).toMatch(/^\[RAW\] 8 messages\n/);
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
    server = await startScriptedOpenAIServer(times(3, { kind: 'reply', content: '(nothing)' }));
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
    const ends = result.rounds.map((round) => round.end);
    for (const end of ends) expect(long[end]?.role).toBe('user');
    expect(ends[1]).toBeGreaterThan(ends[0] ?? 0);
    expect(result.rounds[1]?.start).toBe(ends[0]);
    expect((await store.load('cli:a')).lastConsolidated).toBe(ends[1]);
    expect(result.estimateAfter).toBeGreaterThan(result.target);
    expect(server.pending()).toBe(1);
  });

  it('splits a backlog larger than one request into model-sized chunks and asks the model for each', async () => {
    server = await startScriptedOpenAIServer(
      Array.from(
        { length: 40 },
        (_, index) => ({ kind: 'reply', content: `- [durable] chunk ${index}` }) as const,
      ),
    );
    const { store, backlog, consolidator } = await backlogSetup();
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.status).toBe('consolidated');
    expect(result.rounds.length).toBeGreaterThan(5);
    expect(result.rounds.every((round) => round.outcome.kind === 'summary')).toBe(true);
    expect(result.rounds[0]?.start).toBe(0);
    for (const [index, round] of result.rounds.entries()) {
      expect(backlog[round.end]?.role).toBe('user');
      if (index > 0) expect(round.start).toBe(result.rounds[index - 1]?.end);
    }
    expect(result.estimateAfter).toBeLessThanOrEqual(result.target);
    const budget = consolidator.budget;
    for (const request of server.requests as { messages: { content: string }[] }[]) {
      const text = request.messages.map((message) => message.content).join('');
      expect(text.length / 4).toBeLessThanOrEqual(budget);
    }
    expect(
      (await new HistoryLog({ workspace }).read()).every((entry) => !entry.content.startsWith('[RAW]')),
    ).toBe(true);
    expect((await store.load('cli:a')).lastConsolidated).toBe(result.rounds.at(-1)?.end);
  });

  it('estimates every unconsolidated message, loading past the newest 2,000 when there are more', async () => {
    server = await startScriptedOpenAIServer(times(60, { kind: 'reply', content: '- [durable] chunk' }));
    const long = Array.from({ length: 2_500 }, (_, index) =>
      index % 2 === 0 ? user(`question ${index}`) : assistant(`answer ${index}`),
    );
    const make = async (contextWindowTokens: number) => {
      const store = new MemorySessionStore();
      await store.append('cli:a', long);
      const model = new OpenAICompatibleChatModel({
        baseURL: server?.baseURL ?? '',
        model: 'm',
        maxRetries: 0,
      });
      const consolidator = new MemoryConsolidator({
        workspace,
        store,
        model,
        contextWindowTokens,
        maxOutputTokens: 200,
        now,
      });
      return { store, consolidator, loads: vi.spyOn(store, 'load') };
    };
    const quiet = await make(1_000_000);
    const under = await quiet.consolidator.maybeConsolidate('cli:a');
    expect(under.status).toBe('under-budget');
    expect(quiet.loads.mock.calls.map((call) => call[1]?.lastMessages)).toEqual([2_000, undefined]);
    // The estimate is the one of the whole session.
    const whole = new WholeLoads();
    await whole.append('cli:a', long);
    const reference = new MemoryConsolidator({
      workspace,
      store: whole,
      model: new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }),
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 200,
      now,
    });
    expect((await reference.maybeConsolidate('cli:a')).estimateBefore).toBe(under.estimateBefore);
    const busy = await make(4_000);
    const archived = await busy.consolidator.maybeConsolidate('cli:a');
    expect(archived.status).toBe('consolidated');
    expect(archived.rounds[0]?.start).toBe(0);
    expect(busy.loads.mock.calls.slice(0, 2).map((call) => call[1]?.lastMessages)).toEqual([
      2_000,
      undefined,
    ]);
  });

  it('consolidates a session whose newest 2,000 messages fit the budget but whose whole unconsolidated part does not', async () => {
    server = await startScriptedOpenAIServer(times(60, { kind: 'reply', content: '- [durable] chunk' }));
    const store = new MemorySessionStore();
    const tokenCounter = new SimpleTokenCounter();
    // 3,000 messages of the same size: the newest 2,000 take 2/3 of the whole estimate.
    const messages = Array.from({ length: 3_000 }, (_, index) => {
      const text = `${String(index).padStart(4, '0')} ${'lorem ipsum '.repeat(35)}`;
      return index % 2 === 0 ? user(text) : assistant(text);
    });
    await store.append('cli:a', messages);
    const each = tokenCounter.countMessage(messages[0] as Message);
    const consolidator = new MemoryConsolidator({
      workspace,
      store,
      tokenCounter,
      model: new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }),
      contextWindowTokens: 2_500 * each + 200 + 1_024,
      maxOutputTokens: 200,
      maxRounds: 1,
      now,
    });
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.estimateBefore).toBeGreaterThan(result.budget); // the newest 2,000 alone: about 2,000 × each
    expect(result.budget).toBe(2_500 * each);
    expect(result.status).toBe('consolidated');
    expect((await store.load('cli:a')).lastConsolidated).toBeGreaterThan(0);
  });

  it('keeps the rounds done before a configuration failure, with their summary', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '- [durable] chunk 0' },
      { kind: 'status', status: 401 },
    ]);
    const { store, consolidator } = await backlogSetup();
    const updatedAt = (await store.load('cli:a')).updatedAt;
    const error = await consolidator.maybeConsolidate('cli:a').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'configuration', status: 401 });
    const record = await store.load('cli:a');
    expect(record.lastConsolidated).toBeGreaterThan(0);
    expect(String(error)).toContain(`stays archived up to message ${record.lastConsolidated}.`);
    expect(record.metadata['_last_summary']).toEqual({ text: '- [durable] chunk 0', last_active: updatedAt });
    expect((await new HistoryLog({ workspace }).read()).map((entry) => entry.content)).toEqual([
      '- [durable] chunk 0',
    ]);
  });

  it('raw-archives a turn too large for one request whole, in several entries', async () => {
    const store = new MemorySessionStore();
    const huge = 'x'.repeat(40_000);
    await store.append('cli:a', [
      user(`paste: ${huge}`, { id: 'u0' }),
      assistant('ok', { id: 'a0' }),
      ...Array.from({ length: 12 }, (_, index) =>
        index % 2 === 0 ? user(`q${index}`) : assistant(`a${index}`),
      ),
    ]);
    server = await startScriptedOpenAIServer([]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 });
    const consolidator = new MemoryConsolidator({
      workspace,
      store,
      model,
      contextWindowTokens: 8000,
      maxOutputTokens: 100,
    });
    const result = await consolidator.maybeConsolidate('cli:a');
    expect(result.rounds[0]).toMatchObject({ start: 0, end: 2, outcome: { kind: 'raw', entries: 3 } });
    expect(result.rounds[0]?.outcome).not.toHaveProperty('failure');
    expect(server.requests).toHaveLength(0);
    const entries = await new HistoryLog({ workspace }).read();
    expect(entries.map((entry) => entry.content.split('\n')[0])).toEqual([
      '[RAW] 2 messages (part 1/3)',
      '[RAW] 2 messages (part 2/3)',
      '[RAW] 2 messages (part 3/3)',
    ]);
    const body = entries.map((entry) => entry.content.slice(entry.content.indexOf('\n') + 1)).join('');
    expect(body).toContain(`USER: paste: ${huge}`);
    expect(body).toMatch(/ASSISTANT: ok$/);
    expect(entries.every((entry) => entry.content.length <= 16_000)).toBe(true);
  });

  it('refuses a window that leaves no budget, naming the numbers', () => {
    const store = new MemorySessionStore();
    const model = new OpenAICompatibleChatModel({ baseURL: 'http://127.0.0.1:1/v1', model: 'm' });
    expect(
      () =>
        new MemoryConsolidator({ workspace, store, model, contextWindowTokens: 100, maxOutputTokens: 8192 }),
    ).toThrow(
      /contextWindowTokens 100 leaves no room to consolidate: 100 − maxOutputTokens 8192 − 1024 reserved = -9116 tokens\. Raise contextWindowTokens above 9216/,
    );
    expect(
      new MemoryConsolidator({ workspace, store, model, contextWindowTokens: 0, maxOutputTokens: 8192 })
        .budget,
    ).toBe(-9216);
  });

  it('refuses a budget the system prompt alone exceeds, before archiving anything', async () => {
    const { consolidator, store } = await setup([], { systemPrompt: () => 'long prompt '.repeat(2000) });
    const before = await snapshot(store);
    await expect(consolidator.maybeConsolidate('cli:a')).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/needs \d+ tokens before any message \(system prompt \d+, tools 0/),
    });
    expect(await snapshot(store)).toEqual(before);
  });

  it('classifies what a custom ChatModel throws', async () => {
    const store = new MemorySessionStore();
    await store.append('cli:a', conversation());
    const failing = (error: unknown): ChatModel => ({
      specificationVersion: 'v1',
      id: 'custom',
      generate: async () => {
        throw error;
      },
    });
    const make = (model: ChatModel) =>
      new MemoryConsolidator({ workspace, store, model, contextWindowTokens: 3124, maxOutputTokens: 100 });
    await expect(
      make(failing(Object.assign(new Error('Unauthorized'), { statusCode: 401 }))).maybeConsolidate('cli:a'),
    ).rejects.toMatchObject({ kind: 'configuration', status: 401 });
    expect((await store.load('cli:a')).lastConsolidated).toBe(0);
    const degraded = await make(failing(new Error('socket hang up'))).maybeConsolidate('cli:a');
    expect(degraded.status).toBe('degraded');
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
      { contextWindowTokens: 100_000 },
    );
    await store.append('dream:20260301-000000', [user('dream', { id: 'd' })]);
    const updatedAt = (await store.load('cli:a')).updatedAt ?? '';
    const later = new Date(Date.parse(updatedAt) + 15 * 60_000);
    const results = await consolidator.consolidateIdle({ idleAfterMs: 15 * 60_000, now: later });
    expect(results).toEqual([
      {
        sessionKey: 'cli:a',
        status: 'archived',
        rounds: [{ start: 0, end: 20, outcome: { kind: 'summary', text: '- [durable] idle summary' } }],
      },
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

  it('treats an idle TTL of 0 as off, like nanobot', async () => {
    const { consolidator, store } = await setup([], { contextWindowTokens: 100_000 });
    expect(await consolidator.consolidateIdle({ idleAfterMs: 0, now: new Date(2100, 0, 1) })).toEqual([]);
    expect((await store.load('cli:a')).lastConsolidated).toBe(0);
    await expect(consolidator.consolidateIdle({ idleAfterMs: -1 })).rejects.toThrow(
      /idleAfterMs must be ≥ 0/,
    );
  });

  it.for(['jsonl', 'sqlite', 'postgres'] as const)(
    'lets only one of two workers archive a %s session (cross-process session lock)',
    async (backend, context) => {
      if (backend === 'postgres') requirePostgres(context);
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
      if (backend === 'postgres') await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
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
