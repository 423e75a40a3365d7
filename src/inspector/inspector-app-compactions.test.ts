import { describe, expect, it } from 'vitest';
import { assistant, user } from '../core/index.js';
import { appendCompaction, ContextPipeline, MemorySessionStore, SimpleTokenCounter } from '../index.js';
import { createInspectorApp } from './inspector-app.js';
import { SessionInspector } from './session-inspector.js';

async function setup() {
  const store = new MemorySessionStore();
  await store.append('cli:direct', [
    user('first', { id: 'u1' }),
    assistant('one', { id: 'a1' }),
    user('second', { id: 'u2' }),
    assistant('two', { id: 'a2' }),
    user('third', { id: 'u3' }),
  ]);
  await store.append('cli:plain', [user('hello', { id: 'p1' })]);
  const record = {
    kind: 'summary',
    producer: { strategy: 'summarize', model: 'cheap' },
    trigger: 'manual',
    createdAt: '2026-12-07T10:00:00.000Z',
  } as const;
  await appendCompaction(store, {
    sessionKey: 'cli:direct',
    record: {
      ...record,
      id: 'r1',
      replaces: ['u1', 'a1'],
      summary: { id: 's1', role: 'user', content: 'asked first' },
      depth: 1,
      parents: [],
      tokensBefore: 90,
      tokensAfter: 10,
    },
  });
  await appendCompaction(store, {
    sessionKey: 'cli:direct',
    record: {
      ...record,
      id: 'r2',
      replaces: ['r1', 'u2', 'a2'],
      summary: { id: 's2', role: 'user', content: 'asked twice' },
      depth: 2,
      parents: ['r1'],
      tokensBefore: 60,
      tokensAfter: 12,
    },
  });
  const inspector = new SessionInspector({
    store,
    createBuilder: () => new ContextPipeline({ providers: [], tokenCounter: new SimpleTokenCounter() }),
    contextWindowTokens: 1_000,
  });
  return createInspectorApp({ inspector });
}

const get = (app: Awaited<ReturnType<typeof setup>>, path: string) =>
  app.request(`http://127.0.0.1:4319${path}`, { headers: { host: '127.0.0.1:4319' } });

describe('GET /api/sessions/:key/compactions', () => {
  it('lists the records with the raw messages they replaced, their parents and the tokens saved', async () => {
    const app = await setup();
    const response = await get(app, `/api/sessions/${encodeURIComponent('cli:direct')}/compactions`);
    expect(response.status).toBe(200);
    const { compactions } = (await response.json()) as {
      compactions: {
        record: { id: string; depth: number; parents: string[] };
        tokensSaved: number;
        isApplied: boolean;
        replaced: { type: string; id: string; message?: { content: string } }[];
      }[];
    };
    expect(
      compactions.map((entry) => [entry.record.id, entry.record.depth, entry.tokensSaved, entry.isApplied]),
    ).toEqual([
      ['r1', 1, 80, true],
      ['r2', 2, 48, true],
    ]);
    expect(compactions[0]?.replaced).toEqual([
      { type: 'message', id: 'u1', message: expect.objectContaining({ id: 'u1', content: 'first' }) },
      { type: 'message', id: 'a1', message: expect.objectContaining({ id: 'a1', content: 'one' }) },
    ]);
    expect(compactions[1]?.replaced.map((item) => [item.type, item.id])).toEqual([
      ['record', 'r1'],
      ['message', 'u2'],
      ['message', 'a2'],
    ]);
  });

  it('is empty for a session without records and 404 for an unknown one', async () => {
    const app = await setup();
    expect(await (await get(app, '/api/sessions/cli%3Aplain/compactions')).json()).toEqual({
      compactions: [],
    });
    const missing = await get(app, '/api/sessions/nobody/compactions');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});
