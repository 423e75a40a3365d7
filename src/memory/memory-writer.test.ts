import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { OpenAICompatibleChatModel } from '../llm/openai-compatible-chat-model.js';
import { WORKSPACE_TEMPLATES } from '../workspace/workspace-templates.js';
import { HistoryLog } from './history-log.js';
import { MemoryFile } from './memory-file.js';
import { MemoryWriter, type MemoryWriterOptions } from './memory-writer.js';

let workspace: string;
let server: ScriptedOpenAIServer | undefined;
const OLD =
  '# Memory\n- The user lives in Berlin and works as a nurse.\n- Prefers short answers in German.\n';
const now = () => new Date(Date.UTC(2026, 2, 1, 12, 0, 0));

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-writer-'));
  await writeFile(path.join(workspace, 'SOUL.md'), 'I am calm.');
  await mkdir(path.join(workspace, 'memory'));
  await writeFile(path.join(workspace, 'memory', 'MEMORY.md'), OLD);
  await chmod(path.join(workspace, 'memory', 'MEMORY.md'), 0o644);
  const log = new HistoryLog({ workspace });
  for (let index = 1; index <= 25; index += 1)
    await log.append(`- [durable] fact ${index}`, { sessionKey: 'cli:a' });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

async function writer(script: readonly ScriptedReply[], extra: Partial<MemoryWriterOptions> = {}) {
  server = await startScriptedOpenAIServer(script);
  const model = new OpenAICompatibleChatModel({
    baseURL: server.baseURL,
    model: 'm',
    maxRetries: 1,
    retryBaseDelayMs: 1,
    // Short only when the script hangs, so a slow machine never turns another case into a timeout.
    timeoutMs: script.some((reply) => reply.kind === 'hang') ? 300 : 5000,
  });
  return new MemoryWriter({ workspace, model, now, ...extra });
}

const memoryPath = () => path.join(workspace, 'memory', 'MEMORY.md');

async function state(): Promise<unknown> {
  const memory = path.join(workspace, 'memory');
  const names = (await readdir(memory)).sort();
  const files = await Promise.all(
    names
      .filter((name) => !name.startsWith('.backups'))
      .map(async (name) => [name, await readFile(path.join(memory, name), 'utf8')]),
  );
  return { files, mode: (await stat(memoryPath())).mode & 0o777, names };
}

const KEEP =
  '# Memory\n- The user lives in Berlin and works as a nurse.\n- Prefers short answers in German.\n- facts 1-20\n';

describe('MemoryWriter', () => {
  it('writes MEMORY.md per batch of 20, keeps a backup and the mode, and advances the Dream cursor', async () => {
    const run = await writer([
      { kind: 'reply', content: KEEP },
      { kind: 'reply', content: `\`\`\`markdown\n${KEEP}- facts 21-25\n\`\`\`` },
    ]);
    const result = await run.run();
    expect(result).toMatchObject({
      status: 'updated',
      processed: 25,
      cursor: 25,
      compaction: { removed: 0 },
    });
    expect(await readFile(memoryPath(), 'utf8')).toBe(`${KEEP}- facts 21-25\n`);
    expect((await stat(memoryPath())).mode & 0o777).toBe(0o644);
    expect(await new HistoryLog({ workspace }).readDreamCursor()).toBe(25);
    const backups = await new MemoryFile({ workspace }).backups();
    expect(backups.map((file) => path.basename(file))).toEqual([
      'MEMORY.20260301T120000000Z.001.md',
      'MEMORY.20260301T120000000Z.000.md',
    ]);
    expect(await readFile(backups[1] ?? '', 'utf8')).toBe(OLD);
    expect(await readFile(backups[0] ?? '', 'utf8')).toBe(KEEP);
    expect((await stat(backups[1] ?? '')).mode & 0o777).toBe(0o644);
    const first = server?.requests[0] as { messages: { role: string; content: string }[] };
    expect(first.messages[0]?.content).toMatch(/long-term memory file memory\/MEMORY.md/);
    const body = first.messages[1]?.content ?? '';
    expect(body).toContain('### SOUL.md\nI am calm.');
    expect(body).toContain('### USER.md\n(empty)');
    expect(body).toContain(`### memory/MEMORY.md\n${OLD.trim()}`);
    expect(body).toContain('- [durable] fact 20');
    expect(body).not.toContain('fact 21');
    expect(await run.run()).toMatchObject({ status: 'up-to-date', processed: 0, cursor: 25 });
  });

  it('keeps an unusual mode exactly', async () => {
    await chmod(memoryPath(), 0o640);
    await (await writer([{ kind: 'reply', content: KEEP }], { batchSize: 25 })).run();
    expect((await stat(memoryPath())).mode & 0o777).toBe(0o640);
  });

  it.each<[string, ScriptedReply[], string, string]>([
    [
      'a truncated reply',
      [{ kind: 'reply', content: '# Mem', finishReason: 'length' }],
      'unusable-reply',
      'length',
    ],
    [
      'a content-filtered reply',
      [{ kind: 'reply', content: '# Memory\n- partial', finishReason: 'content_filter' }],
      'unusable-reply',
      'content-filter',
    ],
    [
      'a reply with no finish reason',
      [{ kind: 'reply', content: KEEP, finishReason: null }],
      'unusable-reply',
      'no-finish-reason',
    ],
    [
      'a closed <think> reply',
      [{ kind: 'reply', content: '<think>I should rewrite it</think>' }],
      'unusable-reply',
      'reasoning-only',
    ],
    [
      'an unclosed <think> reply',
      [{ kind: 'reply', content: '<think>I should rewrite' }],
      'unusable-reply',
      'reasoning-only',
    ],
    ['an empty reply', [{ kind: 'reply', content: '' }], 'unusable-reply', 'empty'],
    ['a (nothing) reply', [{ kind: 'reply', content: '(nothing)' }], 'unusable-reply', 'empty'],
    [
      'a tool-call reply',
      [{ kind: 'reply', content: null, toolCalls: [{ id: 'c', name: 'edit_file', arguments: '{}' }] }],
      'unusable-reply',
      'tool-calls',
    ],
    [
      'a server error',
      [
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
      ],
      'transient',
      'http-status',
    ],
    ['a timeout', [{ kind: 'hang' }, { kind: 'hang' }], 'transient', 'timeout'],
    ['a 401', [{ kind: 'status', status: 401 }], 'configuration', 'http-status'],
  ])('keeps MEMORY.md, its mode and the cursor on %s', async (_name, script, kind, reason) => {
    const before = await state();
    const run = await writer(script);
    const error = await run.run().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind, reason });
    expect(String(error)).toContain(
      'MEMORY.md and the Dream cursor are unchanged; history entries 1–20 are retried next run.',
    );
    expect(await state()).toEqual(before);
    expect(await new MemoryFile({ workspace }).backups()).toEqual([]);
  });

  it('refuses a reply that loses most of MEMORY.md, saying how to override, and writes it when allowed', async () => {
    const short = '# Memory\n- nurse\n';
    const before = await state();
    const refused = await (await writer([{ kind: 'reply', content: short }], { batchSize: 25 }))
      .run()
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({
      code: 'SUMMARISER_FAILED',
      kind: 'unusable-reply',
      reason: 'loses-memory',
    });
    expect(String(refused)).toMatch(
      /keep only 13% of the current one's words \(2 of 16; 93 → 17 characters\), below the 50% threshold.*minRetainedRatio: 0 \(CLI --min-retained 0\)/,
    );
    expect(await state()).toEqual(before);
    await server?.close();
    const allowed = await writer([{ kind: 'reply', content: short }], { batchSize: 25, minRetainedRatio: 0 });
    expect((await allowed.run()).status).toBe('updated');
    expect(await readFile(memoryPath(), 'utf8')).toBe(short);
    expect(await readFile((await new MemoryFile({ workspace }).backups())[0] ?? '', 'utf8')).toBe(OLD);
  });

  it('replaces an untouched template without the loss check', async () => {
    await writeFile(memoryPath(), WORKSPACE_TEMPLATES['memory/MEMORY.md']);
    await (await writer([{ kind: 'reply', content: '- fact' }], { batchSize: 25 })).run();
    expect(await readFile(memoryPath(), 'utf8')).toBe('- fact\n');
  });

  it('prints the diff of a dry run and writes nothing', async () => {
    const before = await state();
    const run = await writer([
      { kind: 'reply', content: KEEP },
      { kind: 'reply', content: `${KEEP}- facts 21-25` },
    ]);
    const result = await run.run({ dryRun: true });
    expect(result).toEqual({
      status: 'dry-run',
      processed: 25,
      cursor: 0,
      diff: [
        '--- memory/MEMORY.md',
        '+++ memory/MEMORY.md (new)',
        '@@ -1,3 +1,5 @@',
        ' # Memory',
        ' - The user lives in Berlin and works as a nurse.',
        ' - Prefers short answers in German.',
        '+- facts 1-20',
        '+- facts 21-25',
        '',
      ].join('\n'),
    });
    const second = server?.requests[1] as { messages: { content: string }[] };
    expect(second.messages[1]?.content).toContain('- facts 1-20');
    expect(await state()).toEqual(before);
  });

  it('keeps at most maxBackups previous versions', async () => {
    const replies = Array.from(
      { length: 5 },
      (_, index) => ({ kind: 'reply', content: `${KEEP}- v${index}` }) as const,
    );
    await (await writer(replies, { batchSize: 5, maxBackups: 2 })).run();
    const backups = await new MemoryFile({ workspace }).backups();
    expect(backups).toHaveLength(2);
    expect(await readFile(backups[0] ?? '', 'utf8')).toBe(`${KEEP}- v3\n`);
  });

  it('uses the workspace prompts/dream.md override', async () => {
    await mkdir(path.join(workspace, 'prompts'));
    await writeFile(path.join(workspace, 'prompts', 'dream.md'), 'Custom dream prompt.');
    const run = await writer([
      { kind: 'reply', content: KEEP },
      { kind: 'reply', content: KEEP },
    ]);
    await run.run();
    const first = server?.requests[0] as { messages: { content: string }[] };
    expect(first.messages[0]?.content).toBe('Custom dream prompt.');
  });

  it('compacts history.jsonl after a successful run', async () => {
    const run = await writer(
      [
        { kind: 'reply', content: KEEP },
        { kind: 'reply', content: KEEP },
      ],
      { maxHistoryEntries: 5 },
    );
    expect((await run.run()).compaction).toEqual({ removed: 20, setAside: 0 });
    expect((await new HistoryLog({ workspace }).read()).map((entry) => entry.cursor)).toEqual([
      21, 22, 23, 24, 25,
    ]);
  });

  it('lets only one of two concurrent writers process the batches', async () => {
    const replies = [
      { kind: 'reply', content: KEEP },
      { kind: 'reply', content: `${KEEP}- more` },
    ] as const;
    const first = await writer(replies);
    const second = new MemoryWriter({
      workspace,
      model: new OpenAICompatibleChatModel({ baseURL: server?.baseURL ?? '', model: 'm' }),
    });
    const results = await Promise.all([first.run(), second.run()]);
    expect(results.map((result) => result.status).sort()).toEqual(['up-to-date', 'updated']);
    expect(server?.requests).toHaveLength(2);
    expect(await new HistoryLog({ workspace }).readDreamCursor()).toBe(25);
    expect(await readFile(memoryPath(), 'utf8')).toBe(`${KEEP}- more\n`);
  });

  it('fast-forwards the cursor when no writer runs', async () => {
    const run = await writer([]);
    expect(await run.fastForward()).toBe(25);
    expect(await run.run()).toMatchObject({ status: 'up-to-date', processed: 0, cursor: 25 });
  });
});
