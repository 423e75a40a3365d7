import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/helpers/scripted-openai-server.js';
import type { Message } from '../../core/index.js';
import { JsonlSessionStore, sessionCompactions } from '../../index.js';
import { main } from '../main.js';

let dir: string;
let server: ScriptedOpenAIServer | undefined;
const messages: Message[] = [];
for (let turn = 0; turn < 12; turn += 1) {
  messages.push({ id: `u${turn}`, role: 'user', content: `question ${turn} ${'q'.repeat(400)}` });
  messages.push({ id: `a${turn}`, role: 'assistant', content: `answer ${turn} ${'a'.repeat(400)}` });
}
messages[2] = { ...(messages[2] as Message), metadata: { pinned: true } };

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-compact-'));
  await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).append('cli:direct', messages);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const flags = ['--workspace', '.', '--session', 'cli:direct', '--keep-recent', '600'];

describe('ctxloom compact', () => {
  it('--dry-run lists what would be replaced and what stays pinned, and writes nothing', async () => {
    const io = memoryIo(dir);
    const file = new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).filePath('cli:direct');
    const before = await readFile(file, 'utf8');
    expect(await main(['compact', ...flags, '--dry-run'], io)).toBe(0);
    expect(io.out()).toContain('Would replace 9 of 24 messages');
    expect(io.out()).toContain('  - u0 (user-message)');
    expect(io.out()).toContain('  - u1 (marked)');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('stores a record beside the messages, and the next build shows the summary in their place', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: 'The user asked 10 questions.\nLeft out: nothing.' },
    ]);
    const env = { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'cheap-model' };
    const io = memoryIo(dir, env);
    expect(await main(['compact', ...flags], io)).toBe(0);
    expect(io.out()).toMatch(/Compacted 9 messages of cli:direct into record cmp-/);
    const loaded = await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).load('cli:direct');
    expect(loaded.messages).toHaveLength(24);
    expect(sessionCompactions(loaded)[0]).toMatchObject({
      kind: 'summary',
      producer: { model: 'openai-compatible:cheap-model' },
    });
    const build = memoryIo(dir, env);
    expect(
      await main(
        [
          'build',
          '--preset',
          'agent',
          '--workspace',
          '.',
          '--session',
          'cli:direct',
          '--format',
          'json',
          'next?',
        ],
        build,
      ),
    ).toBe(0);
    const sent = build.out();
    expect(sent).toContain('The user asked 10 questions.');
    expect(sent).not.toContain('answer 3 ');
    expect(sent.split('question 3 ')).toHaveLength(2); // the user's own words stay, once
    expect(sent).toContain('question 11 ');
  });

  it('changes nothing and exits 8 when the summariser fails transiently', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'status', status: 503 },
      { kind: 'status', status: 503 },
      { kind: 'status', status: 503 },
    ]);
    const env = { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'cheap-model' };
    const io = memoryIo(dir, env);
    expect(await main(['compact', ...flags, '--max-retries', '0'], io)).toBe(8);
    expect(io.err()).toContain('Nothing compacted (summarizer-failed)');
    const loaded = await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).load('cli:direct');
    expect(sessionCompactions(loaded)).toEqual([]);
  });
});
