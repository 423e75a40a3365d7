import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, createSequentialIdGenerator, tool, user } from '../core/index.js';
import { ContextBuilder, MemorySessionStore } from '../index.js';
import { JsonlRequestStore, RequestRecorder } from '../recorder/index.js';
import { createInspectorApp } from './inspector-app.js';
import { SessionInspector } from './session-inspector.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspector-context-tools-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the inspector timeline and the context tools', () => {
  it("lists each step's context-tool calls with the start of their results", async () => {
    const store = new MemorySessionStore();
    const requests = new JsonlRequestStore({ dir });
    const recorder = new RequestRecorder({ store: requests, generateId: createSequentialIdGenerator('req') });
    const ask = user('Which port?', { id: 'u1' });
    const call = assistant('', {
      id: 'a1',
      toolCalls: [
        { id: 'c1', name: 'recall', arguments: '{"query":"port"}' },
        { id: 'c2', name: 'grep', arguments: '{"pattern":"x"}' },
      ],
    });
    const steps = [
      [ask],
      [
        ask,
        call,
        tool('1 hit for "port": port 6543', { id: 't1', toolCallId: 'c1' }),
        tool('none', { id: 't2', toolCallId: 'c2' }),
      ],
    ];
    await store.append('cli:direct', steps[1] ?? []);
    for (const [stepNumber, messages] of steps.entries()) {
      const trace = (await ContextBuilder.forChat({}).build({ history: messages })).trace;
      await recorder.observeRequest({
        source: 'prepare-step',
        runId: 'run-1',
        stepNumber,
        sessionKey: 'cli:direct',
        messages,
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
    const app = createInspectorApp({ inspector, pollIntervalMs: 20 });
    const response = await app.request('http://127.0.0.1:4319/api/sessions/cli%3Adirect/requests', {
      headers: { host: '127.0.0.1:4319' },
    });
    const body = (await response.json()) as { turns: { steps: { contextToolCalls?: unknown[] }[] }[] };
    const [first, second] = body.turns[0]?.steps ?? [];
    expect(first?.contextToolCalls).toBeUndefined();
    expect(second?.contextToolCalls).toEqual([
      { callId: 'c1', name: 'recall', arguments: '{"query":"port"}', result: '1 hit for "port": port 6543' },
    ]);
  });
});
