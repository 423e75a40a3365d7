import { describe, expect, it } from 'vitest';
import { system, user } from '../core/index.js';
import { ContextPipeline, MemorySessionStore, type MessageProvider, SimpleTokenCounter } from '../index.js';
import { createInspectorApp } from './inspector-app.js';
import { SessionInspector } from './session-inspector.js';

type View = { inspection: { warnings: { type: string; message: string }[] } };

describe('createInspectorApp: rebuild', () => {
  it('reuses an unchanged session until rebuild=1, which shows what changed in the cached prefix', async () => {
    const store = new MemorySessionStore();
    await store.append('cli:direct', [user('hi', { id: 'u1' })]);
    let prompt = 'Deploy window opens at 12:00.';
    const persona: MessageProvider = { id: 'identity', getMessages: () => [system(prompt, { id: 's1' })] };
    const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };
    const builder = new ContextPipeline({
      providers: [persona, history],
      tokenCounter: new SimpleTokenCounter(),
    });
    const inspector = new SessionInspector({
      store,
      createBuilder: () => builder,
      contextWindowTokens: 1_000,
    });
    const app = createInspectorApp({ inspector });
    const context = async (query = '') => {
      const response = await app.request(`http://127.0.0.1:4319/api/sessions/cli%3Adirect/context${query}`, {
        headers: { host: '127.0.0.1:4319' },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as View).inspection.warnings;
    };
    expect(await context()).toEqual([]);
    prompt = 'Deploy window opens at 12:30.';
    expect(await context()).toEqual([]);
    const rebuilt = await context('?rebuild=1');
    expect(rebuilt.map((warning) => warning.type)).toEqual(['volatile-content']);
    expect(rebuilt[0]?.message).toContain('"12:00." → "12:30." (clock-time)');
    // the rebuilt inspection replaces the reused one, and what last changed stays shown
    expect(await context()).toEqual(rebuilt);
  });
});
