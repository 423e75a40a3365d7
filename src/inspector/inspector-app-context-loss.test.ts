import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../core/index.js';
import {
  type ContextFilter,
  ContextPipeline,
  MemorySessionStore,
  type MessageProvider,
  SimpleTokenCounter,
} from '../index.js';
import { createInspectorApp } from './inspector-app.js';
import { SessionInspector } from './session-inspector.js';

/** An inspector whose builder keeps only the system prompt and the current message. */
async function setup() {
  const store = new MemorySessionStore();
  await store.append('cli:direct', [
    user('first question', { id: 'u1' }),
    assistant('first answer', { id: 'a1' }),
  ]);
  const persona: MessageProvider = {
    id: 'identity',
    getMessages: () => [system('You are careful.', { id: 's1' })],
  };
  const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };
  const current: MessageProvider = {
    id: 'current-message',
    getMessages: (input) => (input.current === undefined ? [] : [user(input.current, { id: 'now' })]),
  };
  const keepNewest: ContextFilter = {
    id: 'keep-newest',
    apply: (messages) => {
      const dropped = messages.filter((message) => message.role !== 'system' && message.id !== 'now');
      return {
        messages: messages.filter((message) => !dropped.includes(message)),
        decisions: [
          {
            type: 'message-drop',
            stage: 'keep-newest',
            reason: 'over budget',
            messageIds: dropped.map((message) => message.id),
          },
        ],
      };
    },
  };
  const builder = new ContextPipeline({
    providers: [persona, history, current],
    filters: [keepNewest],
    tokenCounter: new SimpleTokenCounter(),
  });
  const inspector = new SessionInspector({
    store,
    createBuilder: () => builder,
    contextWindowTokens: 1_000,
    maxOutputTokens: 100,
    model: 'test-model',
  });
  return createInspectorApp({ inspector });
}

describe('the inspector on a context that lost its history', () => {
  it('lists the context-loss warning first, with the stage that dropped the history', async () => {
    const app = await setup();
    const response = await app.request(
      'http://127.0.0.1:4319/api/sessions/cli%3Adirect/context?message=now%3F',
      {
        headers: { host: '127.0.0.1:4319' },
      },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      inspection: { warnings: { type: string; message: string; details?: Record<string, unknown> }[] };
      trace: { warnings?: { type: string; check: string }[] };
    };
    expect(body.trace.warnings).toMatchObject([{ type: 'history-dropped', check: 'context-loss' }]);
    expect(body.inspection.warnings[0]).toEqual({
      type: 'context-loss',
      message: expect.stringMatching(/^None of the 2 history messages is sent \(keep-newest dropped 2\)/),
      details: { kind: 'history-dropped', historyMessages: 2, stages: { 'keep-newest': 2 } },
    });
  });

  it('styles context-loss warnings apart from the others on the page', async () => {
    const app = await setup();
    const html = await (
      await app.request('http://127.0.0.1:4319/', { headers: { host: '127.0.0.1:4319' } })
    ).text();
    expect(html).toMatch(/\.warning-context-loss \{[^}]*font-weight: 600/);
  });
});
