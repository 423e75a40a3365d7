import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSequentialIdGenerator, user } from '../core/index.js';
import { ContextBuilder, MemorySessionStore } from '../index.js';
import { JsonlRequestStore, RequestRecorder } from '../recorder/index.js';
import { createInspectorApp } from './inspector-app.js';
import { SessionInspector } from './session-inspector.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspector-timeline-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function setup() {
  const store = new MemorySessionStore();
  const requests = new JsonlRequestStore({ dir });
  const recorder = new RequestRecorder({ store: requests, generateId: createSequentialIdGenerator('req') });
  const builder = ContextBuilder.forChat({ systemPrompt: 'Be brief.', observer: recorder });
  const history = [user('one', { id: 'u1' })];
  await store.append('cli:direct', history);
  await builder.build({ history, sessionKey: 'cli:direct' });
  await recorder.observeUsage({ inputTokens: 30, cachedInputTokens: 0, outputTokens: 4, latencyMs: 90 });
  for (const stepNumber of [0, 1]) {
    const trace = (await ContextBuilder.forChat({}).build({ history })).trace;
    await recorder.observeRequest({
      source: 'prepare-step',
      runId: 'run-1',
      stepNumber,
      sessionKey: 'cli:direct',
      messages: stepNumber === 0 ? history : [...history, user('two', { id: 'u2' })],
      tools: [],
      trace,
    });
  }
  const inspector = new SessionInspector({
    store,
    createBuilder: () => ContextBuilder.forChat({}),
    contextWindowTokens: 1_000,
    requests,
  });
  return { app: createInspectorApp({ inspector, pollIntervalMs: 20 }), store };
}

const get = (app: Awaited<ReturnType<typeof setup>>['app'], url: string, init: RequestInit = {}) =>
  app.request(`http://127.0.0.1:4319${url}`, { ...init, headers: { host: '127.0.0.1:4319' } });

describe('the inspector timeline', () => {
  it('groups recorded requests into turns of steps with usage and the changes since the previous one', async () => {
    const { app } = await setup();
    const body = (await (await get(app, '/api/sessions/cli%3Adirect/requests')).json()) as {
      totalTurns: number;
      turns: {
        runId?: string;
        steps: { id: string; usage?: { inputTokens: number }; changes?: { added: string[] } }[];
      }[];
    };
    expect(body.totalTurns).toBe(2);
    expect(body.turns.map((turn) => [turn.runId, turn.steps.map((step) => step.id)])).toEqual([
      [undefined, ['req-1']],
      ['run-1', ['req-2', 'req-3']],
    ]);
    expect(body.turns[0]?.steps[0]?.usage?.inputTokens).toBe(30);
    expect(body.turns[1]?.steps[1]?.changes?.added).toEqual(['u2']);
    const whole = (await (await get(app, '/api/sessions/cli%3Adirect/requests/req-3')).json()) as {
      messages: { id: string }[];
    };
    expect(whole.messages.map((message) => message.id)).toEqual(['u1', 'u2']);
    expect((await get(app, '/api/sessions/cli%3Adirect/requests/nope')).status).toBe(404);
  });

  it('streams a session-changed event when the session changes', async () => {
    const { app, store } = await setup();
    const abort = new AbortController();
    const response = await get(app, '/api/events?session=cli%3Adirect', { signal: abort.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil('event: ready');
    await store.append('cli:direct', [user('later')]);
    await readUntil('event: session-changed');
    expect(text).toContain(
      'event: session-changed\ndata: {"event":"session-changed","session":"cli:direct"}',
    );
    abort.abort();
    await reader.cancel();
  });
});
