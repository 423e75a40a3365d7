import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { user } from '../core/index.js';
import { ContextBuilder, ContextError, MemorySessionStore } from '../index.js';
import { JsonlRequestStore, RequestRecorder } from '../recorder/index.js';
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

  it('compares the first build with the tools of the last recorded request, in their order', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspector-seed-'));
    try {
      const read = { name: 'read_file', description: 'Reads a file.' };
      const exec = { name: 'exec', description: 'Runs a command.' };
      const requests = new JsonlRequestStore({ dir });
      const createBuilder = () => ContextBuilder.forChat({ systemPrompt: 'Be brief.' });
      const recorded = ContextBuilder.forChat({
        systemPrompt: 'Be brief.',
        observer: new RequestRecorder({ store: requests }),
      });
      await recorded.build({ current: 'one', sessionKey: 'k', tools: [exec, read] });
      const store = new MemorySessionStore();
      await store.append('k', [user('one', { id: 'u1' })]);
      const inspect = async (tools: readonly (typeof read)[]) => {
        const inspector = new SessionInspector({
          store,
          requests,
          createBuilder,
          tools,
          contextWindowTokens: 1_000,
        });
        return (await inspector.inspectSession('k')).trace.warnings ?? [];
      };
      const reordered = await inspect([read, exec]);
      expect(reordered.map((warning) => warning.details?.['kind'])).toEqual(['tool-order']);
      expect(reordered[0]?.message).toContain('(exec, read_file → read_file, exec)');
      expect(await inspect([exec, read])).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('still inspects a session whose request log cannot be read, and says so in the warnings', async () => {
    const store = new MemorySessionStore();
    await store.append('k', [user('one', { id: 'u1' })]);
    const inspector = new SessionInspector({
      store,
      createBuilder: () => ContextBuilder.forChat({ systemPrompt: 'Be brief.' }),
      contextWindowTokens: 1_000,
      requests: {
        specificationVersion: 'v1',
        id: 'broken',
        append: async () => undefined,
        read: async () => {
          throw new ContextError({
            code: 'STORE_CORRUPT',
            message: 'Line 3 of the request log is not a record.',
          });
        },
        listSessions: async () => [],
        close: async () => undefined,
      },
    });
    const result = await inspector.inspectSession('k');
    expect(result.trace.warnings?.map((warning) => warning.type)).toEqual(['request-log-unreadable']);
    expect(result.inspection.warnings).toContainEqual({
      type: 'check',
      message:
        'Prompt cache: The request log could not be read (STORE_CORRUPT: Line 3 of the request log is not a record.), so the build was not compared with the last request sent.',
    });
  });
});
