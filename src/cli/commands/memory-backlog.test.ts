import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../../core/index.js';
import { HistoryLog, JsonlSessionStore } from '../../index.js';
import { main } from '../main.js';

let dir: string | undefined;
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('ctxloom memory consolidate on a large backlog', () => {
  it('asks the model for every model-sized chunk of a backlog many requests long instead of one raw archive', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-backlog-'));
    const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
    const messages = Array.from({ length: 3000 }, (_, index) =>
      index % 2 === 0
        ? user(`question ${index} about topic ${index % 97}`)
        : assistant(`answer ${index}: noted.`),
    );
    await store.append('cli:huge', messages);
    server = await startScriptedOpenAIServer(
      Array.from(
        { length: 60 },
        (_, index) => ({ kind: 'reply', content: `- [durable] chunk ${index}` }) as const,
      ),
    );
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' });
    expect(await main(['memory', 'consolidate', '--plain-prompt', '--context-window', '14000'], io)).toBe(0);
    const asked = server.requests.length;
    expect(asked).toBeGreaterThan(5);
    const entries = await new HistoryLog({ workspace: dir }).read();
    expect(entries).toHaveLength(asked);
    expect(entries.every((entry) => entry.content.startsWith('- [durable] chunk'))).toBe(true);
    const record = await store.load('cli:huge');
    expect(record.messages).toHaveLength(3000);
    expect(record.lastConsolidated).toBeGreaterThan(2500);
    expect(io.out()).toMatch(new RegExp(`^cli:huge: consolidated in ${asked} rounds \\(summary@0–`));
    const budget = 14_000 - 8192 - 1024;
    for (const request of server.requests as { messages: { content: string }[] }[]) {
      const characters = request.messages.reduce((sum, message) => sum + message.content.length, 0);
      expect(characters / 4).toBeLessThan(budget);
    }
  });
});
