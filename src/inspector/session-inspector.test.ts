import { describe, expect, it, vi } from 'vitest';
import { user } from '../core/index.js';
import { ContextBuilder, MemorySessionStore } from '../index.js';
import { SessionInspector } from './session-inspector.js';

describe('SessionInspector', () => {
  it('reuses a loaded session while the store says it is unchanged, and reloads it after a change', async () => {
    const store = new MemorySessionStore();
    await store.append('k', [user('one', { id: 'u1' })]);
    const load = vi.spyOn(store, 'load');
    const inspector = new SessionInspector({
      store,
      createBuilder: () => ContextBuilder.forChat({}),
      contextWindowTokens: 1_000,
    });
    await inspector.inspectSession('k');
    const second = await inspector.inspectSession('k', { message: 'and now?' });
    expect(load).toHaveBeenCalledTimes(1);
    expect(second.messages.at(-1)?.content).toBe('and now?');
    await store.append('k', [user('two', { id: 'u2' })]);
    const third = await inspector.inspectSession('k');
    expect(load).toHaveBeenCalledTimes(2);
    expect(third.storedMessages).toBe(2);
    await expect(inspector.inspectSession('missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
