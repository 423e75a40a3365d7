import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../../core/index.js';
import { HistoryLog, JsonlSessionStore } from '../../index.js';
import { main } from '../main.js';

let dir: string;
let server: ScriptedOpenAIServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-memory-'));
  const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
  const messages = Array.from({ length: 20 }, (_, index) =>
    index % 2 === 0
      ? user(`question ${index} ${'q'.repeat(400)}`)
      : assistant(`answer ${index} ${'a'.repeat(400)}`),
  );
  await store.append('cli:direct', messages);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('ctxloom memory', () => {
  it('consolidates with the agent system prompt, writes MEMORY.md, and reports status', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '- [durable] The user asks long questions' },
      { kind: 'reply', content: '- [ephemeral] Still asking' },
      { kind: 'reply', content: '# Memory\n- The user asks long questions\n' },
    ]);
    const env = { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'test-model' };
    const consolidate = memoryIo(dir, env);
    expect(
      await main(
        ['memory', 'consolidate', '--workspace', '.', '--context-window', '4300', '--max-output', '100'],
        consolidate,
      ),
    ).toBe(0);
    expect(consolidate.err()).toContain('cli:direct: archived messages 16–18 (summary)');
    expect(consolidate.out()).toMatch(
      /^cli:direct: consolidated in 2 rounds \(summary@0–16, summary@16–18\)/,
    );
    expect(consolidate.err()).toContain('[1/1] cli:direct');
    const request = server.requests[0] as { model: string; messages: { role: string; content: string }[] };
    expect(request.model).toBe('test-model');
    expect(request.messages[0]?.role).toBe('system');
    expect(request.messages[0]?.content.length).toBeGreaterThan(200);
    expect((await new HistoryLog({ workspace: dir }).read()).map((entry) => entry.content)).toEqual([
      '- [durable] The user asks long questions',
      '- [ephemeral] Still asking',
    ]);

    const write = memoryIo(dir);
    expect(
      await main(
        ['memory', 'write', '--workspace', '.', '--model-url', server.baseURL, '--model', 'm'],
        write,
      ),
    ).toBe(0);
    expect(write.out()).toBe('Memory writer: updated, 2 entries processed, Dream cursor 2.\n');
    await writeFile(path.join(dir, 'memory', 'history.jsonl.corrupt'), '{"torn\n');
    expect(await readFile(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')).toBe(
      '# Memory\n- The user asks long questions\n',
    );

    const status = memoryIo(dir);
    expect(await main(['memory', 'status', '--workspace', '.'], status)).toBe(0);
    expect(status.out()).toContain(
      'history.jsonl: 2 entries, latest cursor 2, Dream cursor 2, 0 unprocessed',
    );
    expect(status.out()).toContain('cli:direct: 18/20 messages archived');
    expect(status.out()).toContain('MEMORY.md: 40 characters\n');
    expect(status.out()).toContain(
      'memory/history.jsonl.corrupt: 1 unreadable lines set aside by compaction',
    );
  });

  it('archives idle sessions whole, and treats --idle-minutes 0 as off', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'reply', content: '- [durable] idle' }]);
    const env = { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' };
    const off = memoryIo(dir, env);
    expect(await main(['memory', 'consolidate', '--idle-minutes', '0', '--plain-prompt'], off)).toBe(0);
    expect(off.out()).toBe('Idle compaction is off (--idle-minutes 0); nothing archived.\n');
    const old = new JsonlSessionStore({ dir: path.join(dir, 'sessions'), now: () => new Date(2026, 0, 1) });
    await old.append('cli:old', [user('an old question'), assistant('an old answer')]);
    const io = memoryIo(dir, env);
    expect(await main(['memory', 'consolidate', '--idle-minutes', '1', '--plain-prompt'], io)).toBe(0);
    expect(io.out()).toBe('cli:old: archived in 1 round (summary@0–2)\nArchived 1 idle session.\n');
  });

  it('refuses a context window that leaves no budget, naming the numbers, and archives nothing', async () => {
    server = await startScriptedOpenAIServer([]);
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'consolidate', '--context-window', '100', '--plain-prompt'], io)).toBe(2);
    expect(io.err()).toContain(
      'INVALID_OPTIONS: contextWindowTokens 100 leaves no room to consolidate: 100 − maxOutputTokens 8192 − 1024 reserved = -9116 tokens.',
    );
    expect(io.out()).toBe('');
    expect(await readdir(dir)).not.toContain('memory');
    expect(server.requests).toHaveLength(0);
  });

  it('prints the diff of a dry run of the memory writer and writes nothing', async () => {
    await mkdir(path.join(dir, 'memory'), { recursive: true });
    await writeFile(path.join(dir, 'memory', 'MEMORY.md'), '# Memory\n- old fact\n');
    await new HistoryLog({ workspace: dir }).append('- [durable] new fact');
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '# Memory\n- old fact\n- new fact\n' },
    ]);
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'write', '--dry-run'], io)).toBe(0);
    expect(io.out()).toBe(
      '--- memory/MEMORY.md\n+++ memory/MEMORY.md (new)\n@@ -1,2 +1,3 @@\n # Memory\n - old fact\n+- new fact\nDry run: 1 entries processed; nothing written, Dream cursor stays 0.\n',
    );
    expect(await readFile(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')).toBe('# Memory\n- old fact\n');
    expect(await new HistoryLog({ workspace: dir }).readDreamCursor()).toBe(0);
  });

  it('refuses a MEMORY.md that loses most of the old one, and writes it with --min-retained 0', async () => {
    await mkdir(path.join(dir, 'memory'), { recursive: true });
    const old = '# Memory\n- The user lives in Berlin.\n- Works night shifts as a nurse.\n- Likes tea.\n';
    await writeFile(path.join(dir, 'memory', 'MEMORY.md'), old);
    await new HistoryLog({ workspace: dir }).append('- [correction] forget everything');
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '# Memory\n' },
      { kind: 'reply', content: '# Memory\n' },
    ]);
    const env = { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' };
    const refused = memoryIo(dir, env);
    expect(await main(['memory', 'write'], refused)).toBe(7);
    expect(refused.err()).toMatch(
      /^SUMMARISER_FAILED: The new MEMORY\.md would keep only 7% .*history entry 1 is retried next run.*run again with minRetainedRatio: 0 \(CLI --min-retained 0\)/,
    );
    expect(await readFile(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')).toBe(old);
    const allowed = memoryIo(dir, env);
    expect(await main(['memory', 'write', '--min-retained', '0'], allowed)).toBe(0);
    expect(await readFile(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')).toBe('# Memory\n');
    const backups = await readdir(path.join(dir, 'memory', '.backups'));
    expect(await readFile(path.join(dir, 'memory', '.backups', backups[0] ?? ''), 'utf8')).toBe(old);
    const status = memoryIo(dir);
    expect(await main(['memory', 'status'], status)).toBe(0);
    expect(status.out()).toContain('MEMORY.md: 9 characters, 1 previous versions in memory/.backups\n');
  });

  it('reports and migrates a legacy HISTORY.md', async () => {
    await mkdir(path.join(dir, 'memory'), { recursive: true });
    await writeFile(path.join(dir, 'memory', 'HISTORY.md'), '[2026-01-01 10:00] Old fact.\n\n');
    const status = memoryIo(dir);
    await main(['memory', 'status'], status);
    expect(status.out()).toContain('memory/HISTORY.md (legacy): 30 characters');
    server = await startScriptedOpenAIServer([]);
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'consolidate', '--plain-prompt'], io)).toBe(0);
    expect(io.err()).toContain(
      'moved 1 entries from memory/HISTORY.md into memory/history.jsonl (marked processed; the file is kept as HISTORY.md.bak)',
    );
    const log = new HistoryLog({ workspace: dir });
    expect(await log.read()).toEqual([{ cursor: 1, timestamp: '2026-01-01 10:00', content: 'Old fact.' }]);
    expect(await log.readDreamCursor()).toBe(1);
    await writeFile(path.join(dir, 'memory', 'HISTORY.md'), '[2026-01-02 10:00] Another old fact.\n\n');
    const again = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'consolidate', '--plain-prompt'], again)).toBe(0);
    expect(again.err()).toContain(
      'memory/HISTORY.md was not migrated: memory/history.jsonl already has entries',
    );
    expect(await log.read()).toHaveLength(1);
  });

  it('needs a model endpoint', async () => {
    const io = memoryIo(dir);
    expect(await main(['memory', 'write'], io)).toBe(2);
    expect(io.err()).toContain('No model endpoint');
  });
});
