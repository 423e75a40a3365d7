import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ChatModel } from '../llm/chat-model.js';
import { OpenAICompatibleChatModel } from '../llm/openai-compatible-chat-model.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { PostgresSessionStore } from '../sessions/postgres-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { SqliteSessionStore } from '../sessions/sqlite-session-store.js';
import { MemoryConsolidator } from './memory-consolidator.js';

// Archiving is not activity (nanobot §5.5): the session's updatedAt survives every archive write.
const MINUTE_MS = 60_000;
const ACTIVE = Date.UTC(2026, 2, 1, 9, 40);
let workspace: string;
let server: ScriptedOpenAIServer | undefined;
let clockMs = ACTIVE;
const now = (): Date => new Date(clockMs);
const schemas: string[] = [];

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-recency-'));
  clockMs = ACTIVE;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
  if (schemas.length === 0) return;
  for (const schema of schemas.splice(0)) await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

type Backend = 'memory' | 'jsonl' | 'sqlite' | 'postgres';

function openStore(backend: Backend): SessionStore {
  if (backend === 'memory') return new MemorySessionStore({ now });
  if (backend === 'jsonl') return new JsonlSessionStore({ dir: path.join(workspace, 'sessions'), now });
  if (backend === 'sqlite') return new SqliteSessionStore({ path: path.join(workspace, 'db.sqlite'), now });
  const schema = `ctxloom_recency_${process.pid}_${schemas.length}_${Math.floor(performance.now())}`;
  schemas.push(schema);
  return new PostgresSessionStore({ connectionString: PG_URL, schema, now });
}

/** 12 long messages (~204 tokens each) then 8 short ones: under a 3,124 window one round archives the first 8. */
function conversation(): Message[] {
  return Array.from({ length: 20 }, (_, index) => {
    const text = index < 12 ? `turn ${index} ${'x'.repeat(780)}` : `turn ${index}`;
    return index % 2 === 0 ? user(text, { id: `m${index}` }) : assistant(text, { id: `m${index}` });
  });
}

async function scriptedModel(script: readonly ScriptedReply[]): Promise<ChatModel> {
  server = await startScriptedOpenAIServer(script);
  return new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 });
}

function consolidator(
  store: SessionStore,
  options: { readonly model: ChatModel; readonly contextWindowTokens?: number },
): MemoryConsolidator {
  return new MemoryConsolidator({
    workspace,
    store,
    model: options.model,
    contextWindowTokens: options.contextWindowTokens ?? 100_000,
    maxOutputTokens: 100,
    now,
  });
}

describe('MemoryConsolidator and session recency', () => {
  it.for<Backend>(['memory', 'jsonl', 'sqlite', 'postgres'])(
    'leaves a %s session idle after idle compaction: updatedAt before equals after, and is last_active',
    async (backend, context) => {
      if (backend === 'postgres') requirePostgres(context);
      const store = openStore(backend);
      await store.append('cli:a', conversation());
      const before = (await store.load('cli:a')).updatedAt;
      expect(before).toBe(new Date(ACTIVE).toISOString());
      clockMs += 20 * MINUTE_MS;
      const worker = consolidator(store, {
        model: await scriptedModel([{ kind: 'reply', content: '- fact' }]),
      });
      const results = await worker.consolidateIdle({ idleAfterMs: 15 * MINUTE_MS });
      expect(results.map((result) => [result.sessionKey, result.status])).toEqual([['cli:a', 'archived']]);
      const after = await store.load('cli:a');
      expect(after.updatedAt).toBe(before);
      expect((await store.list()).map((entry) => entry.updatedAt)).toEqual([before]);
      expect(after.lastConsolidated).toBe(20);
      expect(after.metadata['_last_summary']).toEqual({ text: '- fact', last_active: before });
      clockMs += 20 * MINUTE_MS;
      expect(await worker.consolidateIdle({ idleAfterMs: 15 * MINUTE_MS })).toEqual([]);
      await store.close();
    },
  );

  it('keeps updatedAt through token-triggered consolidation too (a save in nanobot never refreshes it)', async () => {
    const store = openStore('memory');
    await store.append('cli:a', conversation());
    clockMs += 2 * MINUTE_MS;
    const model = await scriptedModel([{ kind: 'reply', content: '- fact' }]);
    const result = await consolidator(store, { model, contextWindowTokens: 3124 }).maybeConsolidate('cli:a');
    expect(result.status).toBe('consolidated');
    const after = await store.load('cli:a');
    expect(after.lastConsolidated).toBe(8);
    expect(after.updatedAt).toBe(new Date(ACTIVE).toISOString());
    expect(after.metadata['_last_summary']).toEqual({ text: '- fact', last_active: after.updatedAt });
  });

  it('keeps updatedAt when a failing model makes idle compaction archive raw', async () => {
    const store = openStore('sqlite');
    await store.append('cli:a', conversation());
    clockMs += 20 * MINUTE_MS;
    const model = await scriptedModel([{ kind: 'status', status: 503 }]);
    const [result] = await consolidator(store, { model }).consolidateIdle({ idleAfterMs: 15 * MINUTE_MS });
    expect(result?.status).toBe('degraded');
    const after = await store.load('cli:a');
    expect(after.lastConsolidated).toBe(20);
    expect(after.updatedAt).toBe(new Date(ACTIVE).toISOString());
    await store.close();
  });

  it('counts a message appended during the archive call as activity, and leaves it unarchived', async () => {
    const store = new JsonlSessionStore({ dir: path.join(workspace, 'sessions'), now });
    await store.append('cli:a', conversation());
    const before = (await store.load('cli:a')).updatedAt;
    clockMs += 20 * MINUTE_MS;
    const model: ChatModel = {
      specificationVersion: 'v1',
      id: 'appends-meanwhile',
      generate: async () => {
        await store.append('cli:a', [user('still there?', { id: 'late' })]);
        clockMs += MINUTE_MS;
        return { text: '- fact', finishReason: 'stop', toolCalls: [], usage: {} };
      },
    };
    await consolidator(store, { model }).archiveTail('cli:a');
    const appended = new Date(ACTIVE + 20 * MINUTE_MS).toISOString();
    const after = await store.load('cli:a');
    expect(after.updatedAt).toBe(appended);
    expect(after.lastConsolidated).toBe(20);
    expect(after.messages.at(-1)?.id).toBe('late');
    expect(after.metadata['_last_summary']).toEqual({ text: '- fact', last_active: before });
    // The metadata record itself now says so, for nanobot, which reads only that line.
    const header = JSON.parse((await readFile(store.filePath('cli:a'), 'utf8')).split('\n')[0] ?? '');
    expect(header.updated_at).toBe(appended);
  });

  it("drops nanobot's provider_state and keeps the file's updated_at byte for byte when compacting a nanobot session", async () => {
    const store = new JsonlSessionStore({ dir: path.join(workspace, 'sessions'), now });
    const file = store.filePath('telegram:42');
    await mkdir(store.dir, { recursive: true });
    const updatedAt = '2026-03-01T09:40:00.123456';
    const header = {
      _type: 'metadata',
      key: 'telegram:42',
      created_at: '2026-03-01T09:00:00.000001',
      updated_at: updatedAt,
      metadata: { title: 'Trip' },
      last_consolidated: 0,
    };
    const state = { _type: 'provider_state', state: { previous_response_id: 'resp_123' } };
    const messages = [
      { role: 'user', content: 'Book a train to Lyon', timestamp: '2026-03-01T09:39:00.000001' },
      { role: 'assistant', content: 'Booked the 10:04.', timestamp: '2026-03-01T09:39:59.999999' },
    ];
    const messageLines = messages.map((message) => JSON.stringify(message));
    const lines = [header, state].map((line) => JSON.stringify(line)).concat(messageLines);
    await writeFile(file, `${lines.join('\n')}\n`);
    clockMs = Date.parse(updatedAt) + 60 * MINUTE_MS;
    const model = await scriptedModel([{ kind: 'reply', content: '- [ephemeral] Train to Lyon at 10:04' }]);
    const results = await consolidator(store, { model }).consolidateIdle({ idleAfterMs: 15 * MINUTE_MS });
    expect(results.map((result) => result.status)).toEqual(['archived']);
    const written = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(written.some((line) => line.includes('provider_state'))).toBe(false);
    expect(written.slice(1)).toEqual(messageLines);
    expect(JSON.parse(written[0] ?? '')).toEqual({
      ...header,
      metadata: {
        title: 'Trip',
        _last_summary: { text: '- [ephemeral] Train to Lyon at 10:04', last_active: updatedAt },
      },
      last_consolidated: 2,
    });
  });
});
