import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { OpenAICompatibleChatModel } from '../llm/openai-compatible-chat-model.js';
import { HistoryLog } from './history-log.js';
import { MemoryFile } from './memory-file.js';
import { MemoryWriter } from './memory-writer.js';

let workspace: string;
let server: ScriptedOpenAIServer | undefined;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-writer-'));
  await writeFile(path.join(workspace, 'SOUL.md'), 'I am calm.');
  const memory = new MemoryFile({ workspace });
  await memory.write('# Memory\n- old fact\n');
  const log = new HistoryLog({ workspace });
  for (let index = 1; index <= 25; index += 1)
    await log.append(`- [durable] fact ${index}`, { sessionKey: 'cli:a' });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

async function writer(script: readonly ScriptedReply[]) {
  server = await startScriptedOpenAIServer(script);
  const model = new OpenAICompatibleChatModel({
    baseURL: server.baseURL,
    model: 'm',
    maxRetries: 1,
    retryBaseDelayMs: 1,
    timeoutMs: 200,
  });
  return new MemoryWriter({ workspace, model });
}

describe('MemoryWriter', () => {
  it('writes MEMORY.md per batch of 20 and advances the Dream cursor', async () => {
    const run = await writer([
      { kind: 'reply', content: '# Memory\n- facts 1-20\n' },
      { kind: 'reply', content: '```markdown\n# Memory\n- facts 1-25\n```' },
    ]);
    const result = await run.run();
    expect(result).toEqual({ status: 'updated', processed: 25, cursor: 25 });
    expect(await new MemoryFile({ workspace }).read()).toBe('# Memory\n- facts 1-25\n');
    expect(await new HistoryLog({ workspace }).readDreamCursor()).toBe(25);
    const first = server?.requests[0] as { messages: { role: string; content: string }[] };
    expect(first.messages[0]?.content).toMatch(/long-term memory file memory\/MEMORY.md/);
    const body = first.messages[1]?.content ?? '';
    expect(body).toContain('### SOUL.md\nI am calm.');
    expect(body).toContain('### USER.md\n(empty)');
    expect(body).toContain('### memory/MEMORY.md\n# Memory\n- old fact');
    expect(body).toContain('- [durable] fact 20');
    expect(body).not.toContain('fact 21');
    expect(await run.run()).toEqual({ status: 'up-to-date', processed: 0, cursor: 25 });
  });

  it.each<[string, ScriptedReply[]]>([
    ['a truncated reply', [{ kind: 'reply', content: '# Mem', finishReason: 'length' }]],
    ['an empty reply', [{ kind: 'reply', content: '' }]],
    [
      'a tool-call reply',
      [{ kind: 'reply', content: null, toolCalls: [{ id: 'c', name: 'edit_file', arguments: '{}' }] }],
    ],
    [
      'a server error',
      [
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
      ],
    ],
    ['a timeout', [{ kind: 'hang' }, { kind: 'hang' }]],
  ])('keeps MEMORY.md and the cursor on %s', async (_name, script) => {
    const run = await writer(script);
    const result = await run.run();
    expect(result.status).toBe('failed');
    expect(result.cursor).toBe(0);
    expect(await new MemoryFile({ workspace }).read()).toBe('# Memory\n- old fact\n');
    expect(await new HistoryLog({ workspace }).readDreamCursor()).toBe(0);
  });

  it('uses the workspace prompts/dream.md override', async () => {
    await mkdir(path.join(workspace, 'prompts'));
    await writeFile(path.join(workspace, 'prompts', 'dream.md'), 'Custom dream prompt.');
    const run = await writer([
      { kind: 'reply', content: 'a' },
      { kind: 'reply', content: 'b' },
    ]);
    await run.run();
    const first = server?.requests[0] as { messages: { content: string }[] };
    expect(first.messages[0]?.content).toBe('Custom dream prompt.');
  });

  it('compacts history.jsonl after a successful run', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: 'a' },
      { kind: 'reply', content: 'b' },
    ]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm' });
    await new MemoryWriter({ workspace, model, maxHistoryEntries: 5 }).run();
    expect((await new HistoryLog({ workspace }).read()).map((entry) => entry.cursor)).toEqual([
      21, 22, 23, 24, 25,
    ]);
  });

  it('fast-forwards the cursor when no writer runs', async () => {
    const run = await writer([]);
    expect(await run.fastForward()).toBe(25);
    expect(await run.run()).toEqual({ status: 'up-to-date', processed: 0, cursor: 25 });
  });
});
