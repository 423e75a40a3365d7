import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/helpers/scripted-openai-server.js';
import { assistant, HistoryLog, JsonlSessionStore, user } from '../../index.js';
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
    expect(consolidate.err()).toContain('round 2 archived up to message 18 (summary)');
    expect(consolidate.out()).toMatch(/^cli:direct: consolidated in 2 rounds \(summary@16, summary@18\)/);
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
    expect(await readFile(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')).toBe(
      '# Memory\n- The user asks long questions\n',
    );

    const status = memoryIo(dir);
    expect(await main(['memory', 'status', '--workspace', '.'], status)).toBe(0);
    expect(status.out()).toContain(
      'history.jsonl: 2 entries, latest cursor 2, Dream cursor 2, 0 unprocessed',
    );
    expect(status.out()).toContain('cli:direct: 18/20 messages archived');
  });

  it('archives idle sessions whole', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'reply', content: '- [durable] idle' }]);
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'consolidate', '--idle-minutes', '0', '--plain-prompt'], io)).toBe(0);
    expect(io.out()).toBe('cli:direct: summary\nArchived 1 idle session.\n');
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
    expect(io.err()).toContain('moved 1 entries from memory/HISTORY.md');
    expect(await new HistoryLog({ workspace: dir }).read()).toEqual([
      { cursor: 1, timestamp: '2026-01-01 10:00', content: 'Old fact.' },
    ]);
  });

  it('needs a model endpoint', async () => {
    const io = memoryIo(dir);
    expect(await main(['memory', 'write'], io)).toBe(2);
    expect(io.err()).toContain('No model endpoint');
  });
});
