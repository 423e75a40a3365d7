import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { assistant, tool, user } from '../../core/index.js';
import { appendCompaction, type CompactionRecord, JsonlSessionStore, type Message } from '../../index.js';
import { main } from '../main.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const KEY = 'cli:direct';

const MESSAGES: readonly Message[] = [
  user('Always answer in French.', { id: 'u0', metadata: { pinned: true } }),
  assistant('Compris.', { id: 'a0' }),
  user('Read the log.', { id: 'u1' }),
  assistant('', { id: 'a1', toolCalls: [{ id: 'call-1', name: 'read_file', arguments: { path: 'log' } }] }),
  tool('line 1\nline 2', { id: 't1', toolCallId: 'call-1', name: 'read_file' }),
  assistant('The log has two lines.', { id: 'a2' }),
  user('And now?', { id: 'u3' }),
  assistant('Nothing else.', { id: 'a3' }),
  user('Thanks.', { id: 'u4' }),
];

const FIRST: CompactionRecord = {
  id: 'cmp-1',
  kind: 'summary',
  replaces: ['a0', 'u1', 'a1', 't1'],
  pinned: ['u0'],
  summary: { id: 'sum-1', role: 'user', content: 'Summary: the user asked to read the log.' },
  depth: 1,
  parents: [],
  producer: { strategy: 'summarize', model: 'openai-compatible:cheap', instructions: 'keep paths' },
  tokensBefore: 1_200,
  tokensAfter: 150,
  trigger: 'manual',
  createdAt: '2026-12-07T10:00:00.000Z',
};

const SECOND: CompactionRecord = {
  id: 'cmp-2',
  kind: 'summary',
  replaces: ['cmp-1', 'a2', 'u3'],
  pinned: ['u0'],
  summary: { id: 'sum-2', role: 'user', content: 'Summary: the log was read; two lines.' },
  depth: 2,
  parents: ['cmp-1'],
  producer: { strategy: 'summarize' },
  tokensBefore: 400,
  tokensAfter: 120,
  trigger: 'auto',
  createdAt: '2026-12-07T11:00:00.000Z',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-show-compactions-'));
  const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
  await store.append(KEY, MESSAGES);
  await appendCompaction(store, { sessionKey: KEY, record: FIRST });
  await appendCompaction(store, { sessionKey: KEY, record: SECOND });
  await store.close();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ctxloom session show with compaction records', () => {
  it('lists each record: kind, trigger, producer, depth, time, tokens and what it replaced and pinned', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'show', KEY, '--workspace', '.'], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('Compactions (2, oldest first):\n');
    expect(out).toContain(
      '  cmp-1 · summary · manual · summarize, openai-compatible:cheap · depth 1 · 2026-12-07T10:00:00.000Z · 1,200 → 150 tokens (saved 1,050)\n',
    );
    expect(out).toContain('    replaces 4 messages (a0 … t1)\n    pinned u0\n    instructions: keep paths\n');
    expect(out).toContain('    summary sum-1: Summary: the user asked to read the log.\n');
    expect(out).toContain(
      '  cmp-2 · summary · auto · summarize · depth 2 · 2026-12-07T11:00:00.000Z · 400 → 120 tokens (saved 280)\n    replaces 2 messages (a2 … u3) and record cmp-1\n',
    );
    // the raw messages are listed after the records, every one of them
    expect(out).toContain('[user] Read the log.\n');
    expect(out).not.toContain('      replaced ');
  });

  it('--expand prints every replaced and pinned message raw with its id, and parent records by id', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'show', KEY, '--workspace', '.', '--expand'], io)).toBe(0);
    const out = io.out();
    expect(out).toContain(
      [
        '      replaced a0 [assistant] Compris.',
        '      replaced u1 [user] Read the log.',
        '      replaced a1 [assistant] → read_file({"path":"log"}) ',
        '      replaced t1 [tool] line 1\\nline 2',
        '      pinned u0 [user] Always answer in French.',
      ].join('\n'),
    );
    expect(out).toContain(
      [
        '      replaced record cmp-1 (listed above)',
        '      replaced a2 [assistant] The log has two lines.',
        '      replaced u3 [user] And now?',
      ].join('\n'),
    );
  });

  it('says when a record does not apply (a rewind cut its messages)', async () => {
    const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
    await store.rewrite(KEY, { messages: MESSAGES.slice(0, 3) });
    await store.close();
    const io = memoryIo(dir);
    expect(await main(['session', 'show', KEY, '--workspace', '.'], io)).toBe(0);
    expect(io.out()).toMatch(/cmp-1 · .* · NOT APPLIED \(unknown-id: unknown ids a1, t1\.\)/);
    expect(io.out()).toContain('replaces 2 messages (a0 … u1) and 2 missing ids (a1, t1)');
  });

  it('--json includes the records with the replaced messages and parents (through the built CLI)', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'src/cli/bin.ts'),
        'session',
        'show',
        KEY,
        '--workspace',
        dir,
        '--json',
      ],
      { cwd: ROOT },
    );
    const shown = JSON.parse(stdout) as {
      messages: Message[];
      compactions: {
        record: CompactionRecord;
        tokensSaved: number;
        isApplied: boolean;
        violations: unknown[];
        replaced: { type: string; id: string; message?: Message }[];
        pinned: { type: string; id: string; message?: Message }[];
      }[];
    };
    expect(shown.messages.map((message) => message.id)).toEqual(MESSAGES.map((message) => message.id));
    expect(shown.compactions.map((entry) => entry.record)).toEqual([FIRST, SECOND]);
    const [first, second] = shown.compactions;
    expect(first).toMatchObject({ tokensSaved: 1_050, isApplied: true, violations: [] });
    expect(first?.replaced.map((item) => [item.type, item.id, item.message?.content])).toEqual([
      ['message', 'a0', 'Compris.'],
      ['message', 'u1', 'Read the log.'],
      ['message', 'a1', ''],
      ['message', 't1', 'line 1\nline 2'],
    ]);
    expect(first?.replaced[2]?.message?.toolCalls).toEqual([
      { id: 'call-1', name: 'read_file', arguments: '{"path":"log"}' },
    ]);
    expect(first?.pinned).toEqual([expect.objectContaining({ type: 'message', id: 'u0' })]);
    expect(second?.replaced.map((item) => [item.type, item.id])).toEqual([
      ['record', 'cmp-1'],
      ['message', 'a2'],
      ['message', 'u3'],
    ]);
    expect(second).toMatchObject({ tokensSaved: 280, isApplied: true });
  }, 60_000);

  it('lists nanobot consolidation as the first record, and rejects --expand outside show', async () => {
    const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
    await store.append('cli:archived', MESSAGES.slice(6));
    await store.setLastConsolidated('cli:archived', 2);
    await store.close();
    const io = memoryIo(dir);
    expect(await main(['session', 'show', 'cli:archived', '--workspace', '.', '--json'], io)).toBe(0);
    const shown = JSON.parse(io.out()) as { compactions: { record: CompactionRecord }[] };
    expect(shown.compactions.map((entry) => [entry.record.kind, entry.record.replaces])).toEqual([
      ['consolidation', ['u3', 'a3']],
    ]);
    const plain = memoryIo(dir);
    expect(
      await main(['session', 'show', 'cli:direct', '--workspace', '.', '--expand', '--json'], plain),
    ).toBe(0);
    expect(await main(['session', 'list', '--workspace', '.', '--expand'], memoryIo(dir))).toBe(2);
  });
});
