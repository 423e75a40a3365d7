import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { CurrentMessageProvider } from '../providers/current-message-provider.js';
import { stripRuntimeContext } from '../providers/strip-runtime-context.js';
import { testBuildContext } from '../providers/test-context.js';
import { getHistory } from './get-history.js';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { MemorySessionStore } from './memory-session-store.js';
import { saveTurn } from './save-turn.js';

const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('saveTurn', () => {
  it('saves only the new messages, drops invalid and duplicate results, truncates and never stores base64', async () => {
    const store = new MemorySessionStore();
    const earlier = [
      user('before', { id: 'u0' }),
      assistant('', { id: 'a0', toolCalls: [{ id: 'old', name: 'f' }] }),
      tool('done', { id: 't0', toolCallId: 'old' }),
    ];
    await store.append('s', earlier);
    const run: Message[] = [
      ...earlier,
      user(
        [
          { type: 'image', url: PNG, path: '/tmp/cat.png' },
          { type: 'text', text: 'what is this?' },
        ],
        { id: 'u1' },
      ),
      assistant('', {
        id: 'a1',
        toolCalls: [
          { id: 'k1', name: 'look' },
          { id: 'k2', name: 'look' },
        ],
      }),
      tool('x'.repeat(50), { id: 't1', toolCallId: 'k1' }),
      tool('again', { id: 't1b', toolCallId: 'k1' }),
      tool('late answer to an old call', { id: 't-old', toolCallId: 'old' }),
      tool('who called me', { id: 't-unknown', toolCallId: 'nobody' }),
      tool([{ type: 'image', url: PNG }], { id: 't2', toolCallId: 'k2' }),
      assistant('   ', { id: 'blank' }),
      assistant('A cat.', { id: 'a2' }),
    ];
    const result = await saveTurn(store, 's', run, {
      initialLength: 3,
      maxToolResultChars: 10,
      latencyMs: 1500,
    });
    expect(result.saved.map((message) => message.id)).toEqual(['u1', 'a1', 't1', 't2', 'a2']);
    expect(result.saved[0]?.content).toEqual([
      { type: 'text', text: '[image: /tmp/cat.png]' },
      { type: 'text', text: 'what is this?' },
    ]);
    expect(result.saved[2]?.content).toBe('xxxxxxxxxx\n... (truncated)');
    expect(result.saved[3]?.content).toEqual([{ type: 'text', text: '[image]' }]);
    expect(result.saved[4]?.metadata).toEqual({ nanobot: { latency_ms: 1500 } });
    expect(
      result.decisions.filter((entry) => entry.type === 'message-drop').map((entry) => entry.messageIds[0]),
    ).toEqual(['t1b', 't-old', 't-unknown', 'blank']);
    const stored = (await store.load('s')).messages;
    expect(stored).toHaveLength(8);
    expect(JSON.stringify(stored)).not.toContain('base64');
  });

  it('drops a user message whose only content was an inline image without losing the rest', async () => {
    const store = new MemorySessionStore();
    const run = [user([], { id: 'empty' }), user('hi', { id: 'u' })];
    const result = await saveTurn(store, 's', run, { initialLength: 0 });
    expect(result.saved.map((message) => message.id)).toEqual(['u']);
  });

  it("stores a built turn with an image and runtime context in nanobot's marker format", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ctxloom-save-turn-'));
    writeFileSync(path.join(dir, 'a.png'), Buffer.from(PNG.split(',')[1] ?? '', 'base64'));
    const provider = new CurrentMessageProvider({ cwd: dir });
    const [turn] = await provider.getMessages(
      { current: 'What colour?', media: ['a.png'], runtimeContext: [{ source: 'goal', content: ' G ' }] },
      testBuildContext(),
    );
    if (turn === undefined) throw new Error('no current message');
    const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
    await saveTurn(store, 'webui:abc', [turn, assistant('Red.', { id: 'a' })], { initialLength: 0 });
    const line = readFileSync(store.filePath('webui:abc'), 'utf8')
      .split('\n')
      .find((row) => row.includes('"user"'));
    const row = JSON.parse(line ?? '{}') as Record<string, unknown>;
    const block = { type: 'text', text: 'G' };
    expect(row['content']).toEqual([
      { type: 'text', text: `[image: ${path.join(dir, 'a.png')}]` },
      { type: 'text', text: 'What colour?' },
      block,
    ]);
    // nanobot's public view strips the trailing blocks equal to the recorded ones
    expect(row['_runtime_context']).toEqual({ version: 1, sources: ['goal'], blocks: [block] });
    const loaded = await store.load('webui:abc');
    const [publicView] = getHistory(loaded, { includeRuntimeContext: false });
    expect(publicView?.content).toEqual([
      { type: 'text', text: `[image: ${path.join(dir, 'a.png')}]` },
      { type: 'text', text: 'What colour?' },
    ]);
    expect(stripRuntimeContext(loaded.messages[0] as Message).content).toEqual(publicView?.content);
  });
});
