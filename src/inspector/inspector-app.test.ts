import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/index.js';
import {
  type ContextFilter,
  ContextPipeline,
  MemorySessionStore,
  type MessageProvider,
  SimpleTokenCounter,
} from '../index.js';
import { createInspectorApp } from './inspector-app.js';
import { SessionInspector } from './session-inspector.js';

const HOSTILE_KEY = 'web:<script>alert(1)</script>/../x%2F?#';

async function setup() {
  const store = new MemorySessionStore();
  await store.append('cli:direct', [
    user('first question', { id: 'u1' }),
    assistant('', {
      id: 'a1',
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'AGENTS.md' } }],
    }),
    tool('file body', { id: 't1', toolCallId: 'call_1', name: 'read_file' }),
    assistant('done', { id: 'a2' }),
  ]);
  await store.append(HOSTILE_KEY, [user('<img src=x onerror=alert(1)>', { id: 'h1' })]);
  const persona: MessageProvider = {
    id: 'identity',
    getMessages: () => [system('You are careful.', { id: 's1' })],
  };
  const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };
  const current: MessageProvider = {
    id: 'current-message',
    getMessages: (input) => (input.current === undefined ? [] : [user(input.current, { id: 'now' })]),
  };
  const dropFirst: ContextFilter = {
    id: 'drop-first-user',
    apply: (messages) => ({
      messages: messages.filter((message) => message.id !== 'u1'),
      decisions: [
        { type: 'message-drop', stage: 'drop-first-user', reason: 'over budget', messageIds: ['u1'] },
      ],
    }),
  };
  const builder = new ContextPipeline({
    providers: [persona, history, current],
    filters: [dropFirst],
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

const get = (app: Awaited<ReturnType<typeof setup>>, path: string) =>
  app.request(`http://127.0.0.1:4319${path}`, { headers: { host: '127.0.0.1:4319' } });

describe('createInspectorApp', () => {
  it('serves one self-contained page with a strict content security policy', async () => {
    const app = await setup();
    const response = await get(app, '/');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<title>ctxloom inspector</title>');
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)=/i);
    expect(html.replaceAll('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\//);
    expect(response.headers.get('content-security-policy')).toMatch(
      /default-src 'none'; script-src 'sha256-/,
    );
  });

  it('lists the sessions', async () => {
    const response = await get(await setup(), '/api/sessions');
    const body = (await response.json()) as { sessions: { key: string; messageCount: number }[] };
    expect(body.sessions.map((session) => [session.key, session.messageCount])).toEqual([
      ['cli:direct', 4],
      [HOSTILE_KEY, 1],
    ]);
  });

  it('builds a session context with categories, sections, trace and the stored-versus-sent diff', async () => {
    const response = await get(await setup(), '/api/sessions/cli%3Adirect/context?message=What%20next%3F');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      key: string;
      inspection: {
        usedTokens: number;
        categories: { kind: string; tokens: number; name: string }[];
        decisions: unknown[];
      };
      sections: { name: string }[];
      trace: { stages: { id: string }[]; totalTokens: number };
      diff: {
        stored: { id: string; status: string; reasons: string[] }[];
        sent: { id: string; status: string }[];
      };
    };
    expect(body.key).toBe('cli:direct');
    const used = body.inspection.categories.filter((category) => category.kind === 'used');
    expect(used.reduce((sum, category) => sum + category.tokens, 0)).toBe(body.inspection.usedTokens);
    expect(body.inspection.usedTokens).toBe(body.trace.totalTokens);
    expect(body.sections.map((section) => section.name)).toEqual(['Identity', 'History', 'Current message']);
    expect(body.trace.stages.map((stage) => stage.id)).toEqual([
      'identity',
      'history',
      'current-message',
      'drop-first-user',
    ]);
    expect(body.diff.stored.map((entry) => [entry.id, entry.status])).toEqual([
      ['u1', 'dropped'],
      ['a1', 'kept'],
      ['t1', 'kept'],
      ['a2', 'kept'],
    ]);
    expect(body.diff.stored[0]?.reasons).toEqual(['message-drop by drop-first-user: over budget']);
    expect(body.diff.sent.map((entry) => [entry.id, entry.status])).toEqual([
      ['s1', 'added'],
      ['a1', 'kept'],
      ['t1', 'kept'],
      ['a2', 'kept'],
      ['now', 'added'],
    ]);
  });

  it('decodes hostile session keys from the path and returns their content as JSON data', async () => {
    const response = await get(await setup(), `/api/sessions/${encodeURIComponent(HOSTILE_KEY)}/context`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { key: string; diff: { stored: { text: string }[] } };
    expect(body.key).toBe(HOSTILE_KEY);
    expect(body.diff.stored[0]?.text).toBe('<img src=x onerror=alert(1)>');
  });

  it('answers 404 with a JSON error for an unknown session or path', async () => {
    const app = await setup();
    const missing = await get(app, '/api/sessions/nope/context');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const nowhere = await get(app, '/api/nowhere');
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('is read-only: other methods get 405 with an Allow header', async () => {
    const app = await setup();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await app.request('http://127.0.0.1/api/sessions', {
        method,
        headers: { host: '127.0.0.1' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('refuses a non-loopback Host header (DNS rebinding)', async () => {
    const app = await setup();
    const response = await app.request('http://evil.example/api/sessions', {
      headers: { host: 'evil.example' },
    });
    expect(response.status).toBe(403);
  });
});
