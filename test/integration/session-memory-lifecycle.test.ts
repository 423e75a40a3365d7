import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../../src/core/index.js';
import {
  getHistory,
  HistoryLog,
  JsonlSessionStore,
  MemoryConsolidator,
  MemoryWriter,
  type Message,
  OpenAICompatibleChatModel,
  saveTurn,
} from '../../src/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

let workspace: string;
let server: ScriptedOpenAIServer | undefined;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-lifecycle-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

function turn(index: number): Message[] {
  const call = `call_${index}`;
  return [
    user(`Question ${index}: ${'details '.repeat(60)}`, { id: `u${index}` }),
    assistant('', {
      id: `a${index}`,
      toolCalls: [{ id: call, name: 'search', arguments: `{"q":"${index}"}` }],
    }),
    tool(`results for ${index}: ${'r'.repeat(300)}`, { id: `t${index}`, toolCallId: call, name: 'search' }),
    assistant(`Answer ${index}.`, { id: `f${index}` }),
  ];
}

describe('a session through persistence, consolidation, replay and the memory writer', () => {
  it('never loses a message and keeps replay legal', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '- [durable] The user researches topics 0 to 5' },
      { kind: 'reply', content: '# Memory\n- Researches topics 0 to 5\n' },
    ]);
    const store = JsonlSessionStore.forWorkspace(workspace);
    let stored: readonly Message[] = [];
    for (let index = 0; index < 10; index += 1) {
      const run = [...stored, ...turn(index)];
      await saveTurn(store, 'cli:direct', run, { initialLength: stored.length });
      stored = (await store.load('cli:direct')).messages;
    }
    expect(stored).toHaveLength(40);

    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 });
    const consolidator = new MemoryConsolidator({
      workspace,
      store,
      model,
      contextWindowTokens: 3300,
      maxOutputTokens: 200,
    });
    const result = await consolidator.maybeConsolidate('cli:direct');
    expect(result.status).toBe('consolidated');
    const record = await store.load('cli:direct');
    expect(record.messages.map((message) => message.id)).toEqual(stored.map((message) => message.id));
    const boundary = record.lastConsolidated;
    expect(record.messages[boundary]?.role).toBe('user');
    expect(record.metadata['_last_summary']).toMatchObject({
      text: '- [durable] The user researches topics 0 to 5',
    });

    const replay = getHistory(record);
    expect(replay[0]?.role).toBe('user');
    const declared = new Set(replay.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id)));
    for (const message of replay)
      if (message.role === 'tool') expect(declared.has(message.toolCallId ?? '')).toBe(true);

    const writer = await new MemoryWriter({ workspace, model }).run();
    expect(writer).toMatchObject({ status: 'updated', processed: 1, cursor: 1 });
    expect(await readFile(path.join(workspace, 'memory', 'MEMORY.md'), 'utf8')).toContain(
      'Researches topics 0 to 5',
    );
    expect(
      await new HistoryLog({ workspace }).readRecent({ sinceCursor: 1, sessionKey: 'cli:direct' }),
    ).toEqual([]);
  });
});
