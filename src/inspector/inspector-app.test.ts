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
    // nothing is loaded from elsewhere: the only reference is the same-origin icon
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)="(?!\/favicon\.svg")/i);
    const icon = await get(app, '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    expect((await get(app, '/favicon.ico')).status).toBe(200);
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
      rows: {
        index: number;
        stored?: { id: string; status: string; reasons: string[] };
        sent?: { id: string; status: string };
      }[];
      totalRows: number;
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
    // stored and sent side by side, one row per message
    expect(
      body.rows.map((row) => [
        row.stored?.id ?? '',
        row.stored?.status ?? '',
        row.sent?.id ?? '',
        row.sent?.status ?? '',
      ]),
    ).toEqual([
      ['u1', 'dropped', '', ''],
      ['', '', 's1', 'added'],
      ['a1', 'kept', 'a1', 'kept'],
      ['t1', 'kept', 't1', 'kept'],
      ['a2', 'kept', 'a2', 'kept'],
      ['', '', 'now', 'added'],
    ]);
    expect(body.totalRows).toBe(6);
    expect(body.rows[0]?.stored?.reasons).toEqual(['message-drop by drop-first-user: over budget']);
  });

  it('decodes hostile session keys from the path and returns their content as JSON data', async () => {
    const response = await get(await setup(), `/api/sessions/${encodeURIComponent(HOSTILE_KEY)}/context`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { key: string; rows: { stored?: { text: string } }[] };
    expect(body.key).toBe(HOSTILE_KEY);
    expect(body.rows.find((row) => row.stored !== undefined)?.stored?.text).toBe(
      '<img src=x onerror=alert(1)>',
    );
  });

  it('pages the rows (the latest page by default) and searches a session', async () => {
    const app = await setup();
    type Page = {
      rows: { index: number }[];
      offset: number;
      totalRows: number;
      statusCounts: Record<string, number>;
    };
    const latest = (await (await get(app, '/api/sessions/cli%3Adirect/context?limit=2')).json()) as Page;
    expect([latest.offset, latest.rows.map((row) => row.index)]).toEqual([3, [3, 4]]);
    expect(latest.statusCounts).toEqual({ dropped: 1, added: 1, kept: 3 });
    const first = (await (
      await get(app, '/api/sessions/cli%3Adirect/context?limit=2&offset=0')
    ).json()) as Page;
    expect(first.rows.map((row) => row.index)).toEqual([0, 1]);
    const search = await (await get(app, '/api/sessions/cli%3Adirect/search?q=AGENTS')).json();
    expect(search).toMatchObject({ total: 1, hits: [{ index: 2, id: 'a1', role: 'assistant' }] });
    expect((await get(app, '/api/sessions/cli%3Adirect/context?offset=-1')).status).toBe(400);
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
