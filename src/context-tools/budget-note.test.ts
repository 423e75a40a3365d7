import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../core/content.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { createContextTools } from './create-context-tools.js';

describe('the budget note', () => {
  it('goes after the current message in the volatile tail, never into the cached prefix', async () => {
    const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-budget-note-'));
    try {
      const tools = createContextTools({
        workspace,
        store: new MemorySessionStore(),
        sessionKey: 'k',
        contextWindowTokens: 10_000,
        maxOutputTokens: 2000,
        usedTokens: () => 7000,
        autoCompactTokens: 7500,
      });
      const note = await tools.budgetNote();
      expect(note?.content).toContain('7000 of 8000 tokens used (88%), 1000 left');
      const builder = ContextBuilder.forAgent({ workspace, recentHistory: false });
      const history = [
        { id: 'u1', role: 'user' as const, content: 'Refactor the parser.' },
        { id: 'a1', role: 'assistant' as const, content: 'Done.' },
      ];
      const without = await builder.build({ history, current: 'Next?' });
      const withNote = await builder.build({
        history,
        current: 'Next?',
        runtimeContext: note === undefined ? [] : [note],
      });
      expect(withNote.messages.slice(0, -1)).toEqual(without.messages.slice(0, -1));
      const last = withNote.messages.at(-1);
      expect(last?.role).toBe('user');
      expect(textOf(last?.content ?? '')).toMatch(
        /^Next\?\n\n[\s\S]*\[Context budget\] 7000 of 8000 tokens used/,
      );
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
