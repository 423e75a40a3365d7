/**
 * The agent turn of docs/app-builders.md, compiled and run: the `agentTurn` function below is the
 * page's code (imports from the source instead of 'ctxloom'), driven by a scripted model. If the page
 * and this file drift apart, fix both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChatModel,
  type ChatRequest,
  ContextBuilder,
  EstimatingTokenCounter,
  JsonlSessionStore,
  loadReplayedSession,
  MemoryConsolidator,
  msg,
  type SessionStore,
  saveTurn,
  type TokenCounter,
} from '../../src/index.js';
import { JsonlRequestStore, RequestRecorder, readRecordedRequests } from '../../src/recorder/index.js';
import { scaffoldWorkspace } from '../../src/workspace/index.js';

// ---- the page's code -------------------------------------------------------------------------
const budget = { contextWindowTokens: 128_000, maxOutputTokens: 8_192 };

type Agent = {
  readonly store: SessionStore;
  readonly builder: ContextBuilder;
  readonly model: ChatModel;
  readonly recorder: RequestRecorder;
  readonly consolidator: MemoryConsolidator;
  readonly tokenCounter: TokenCounter;
};

async function agentTurn(agent: Agent, turn: { sessionKey: string; text: string }): Promise<string> {
  const { store, builder, model, recorder, consolidator, tokenCounter } = agent;
  // 1. The session as nanobot replays it (only its newest messages are read).
  const { history, summary } = await loadReplayedSession(store, {
    sessionKey: turn.sessionKey,
    tokenCounter,
    ...budget,
  });
  // 2. The context: system prompt, replayed history, this message; governed to the input budget.
  //    The builder's observer (the recorder) records the request.
  const { messages } = await builder.build({
    history,
    ...(summary === undefined ? {} : { summary }),
    current: turn.text,
    sessionKey: turn.sessionKey,
  });
  // 3. The model call, and its usage recorded against that request.
  const reply = await model.generate({ messages, maxOutputTokens: budget.maxOutputTokens });
  await recorder.observeUsage(reply.usage);
  // 4. Save what this turn added (the user's text, not the governed copy), nanobot's way.
  await saveTurn(store, turn.sessionKey, [msg.user(turn.text), msg.assistant(reply.text)], {
    initialLength: 0,
  });
  // 5. Archive the oldest turns into memory/history.jsonl once the session outgrows the budget.
  await consolidator.maybeConsolidate(turn.sessionKey);
  return reply.text;
}
// ---- end of the page's code ------------------------------------------------------------------

/** A model that answers from a script and keeps every request it got. */
function scriptedModel(replies: readonly string[]): ChatModel & { readonly requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    specificationVersion: 'v1',
    id: 'scripted',
    requests,
    async generate(request) {
      requests.push(request);
      const text = replies[requests.length - 1] ?? 'no more replies';
      return { text, finishReason: 'stop', toolCalls: [], usage: { inputTokens: 900, outputTokens: 12 } };
    },
  };
}

let workspace: string;
beforeEach(async () => {
  workspace = path.join(await mkdtemp(path.join(tmpdir(), 'ctxloom-app-builders-')), 'my-agent');
  await scaffoldWorkspace(workspace);
});
afterEach(async () => {
  await rm(path.dirname(workspace), { recursive: true, force: true });
});

describe('docs/app-builders.md: one whole agent turn', () => {
  it('loads, builds, calls the model, saves, records and consolidates, turn after turn', async () => {
    const tokenCounter = new EstimatingTokenCounter();
    const store = new JsonlSessionStore({ dir: path.join(workspace, 'sessions') });
    const recorder = new RequestRecorder({
      store: JsonlRequestStore.besideSessions(path.join(workspace, 'sessions')),
    });
    const model = scriptedModel(['Hello, Ana.', 'You said your name is Ana.']);
    const agent: Agent = {
      store,
      model,
      recorder,
      tokenCounter,
      builder: ContextBuilder.forAgent({
        workspace,
        channel: 'cli',
        tokenCounter,
        observer: recorder,
        ...budget,
      }),
      consolidator: new MemoryConsolidator({ workspace, store, model, tokenCounter, ...budget }),
    };
    expect(await agentTurn(agent, { sessionKey: 'cli:direct', text: 'Hi, I am Ana.' })).toBe('Hello, Ana.');
    expect(await agentTurn(agent, { sessionKey: 'cli:direct', text: 'What is my name?' })).toBe(
      'You said your name is Ana.',
    );
    await recorder.flush();
    // The second request replayed the first turn from the store.
    const second = model.requests[1]?.messages.map((message) => [message.role, message.content]);
    expect(second?.slice(1, 3)).toEqual([
      ['user', 'Hi, I am Ana.'],
      ['assistant', 'Hello, Ana.'],
    ]);
    const record = await store.load('cli:direct');
    expect(record.messages.map((message) => message.content)).toEqual([
      'Hi, I am Ana.',
      'Hello, Ana.',
      'What is my name?',
      'You said your name is Ana.',
    ]);
    const recorded = await readRecordedRequests(recorder.store, { sessionKey: 'cli:direct' });
    expect(recorded).toHaveLength(2);
    expect(recorded.map((request) => request.usage?.inputTokens)).toEqual([900, 900]);
    // Two short turns are far under the budget: nothing was archived, and the model was called twice.
    expect(record.lastConsolidated).toBe(0);
    expect(model.requests).toHaveLength(2);
  });
});
