import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
for (let turn = 0; turn < 30; turn += 1) {
  messages.push({ id: `u${turn}`, role: 'user', content: `question ${turn} ${'q'.repeat(1600)}` });
  messages.push({ id: `a${turn}`, role: 'assistant', content: `answer ${turn} ${'a'.repeat(1600)}` });
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-build-compact-'));
  await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).append('cli:direct', messages);
  await writeFile(
    path.join(dir, 'ctxloom.yaml'),
    'compaction:\n  trigger: 0.6\n  target: 0.3\n  keepRecent: 2000\n  instructions: Keep the question numbers.\n',
  );
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const build = (extra: readonly string[]) => [
  'build',
  '--preset',
  'agent',
  '--workspace',
  '.',
  '--session',
  'cli:direct',
  '--context-window',
  '24000',
  '--max-output',
  '2000',
  '--json',
  ...extra,
  'next?',
];

describe('ctxloom build --compact', () => {
  it('compacts the session with the summariser endpoint, stores the record, and the trace names it', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: 'The user asked questions 0 to 20.\nLeft out: the long padding.' },
    ]);
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'cheap-model' });
    expect(await main(build(['--compact']), io)).toBe(0);
    const out = JSON.parse(io.out()) as { decisions: { details?: Record<string, unknown> }[] };
    const done = out.decisions.find((entry) => entry.details?.['outcome'] === 'compacted');
    const stored = sessionCompactions(
      await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).load('cli:direct'),
    );
    expect(stored).toHaveLength(1);
    expect(done?.details).toMatchObject({ recordId: stored[0]?.id, stored: true });
    expect(stored[0]?.producer).toMatchObject({
      model: 'openai-compatible:cheap-model',
      instructions: 'Keep the question numbers.',
    });
    expect(io.out()).toContain('The user asked questions 0 to 20.');
    // The next plain build replays the stored record.
    const next = memoryIo(dir);
    expect(await main(build([]), next)).toBe(0);
    expect(next.out()).toContain('The user asked questions 0 to 20.');
  });

  it('needs --session and the agent preset, and a model endpoint', async () => {
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', '.', '--compact', 'hi'], io)).not.toBe(0);
    expect(io.err()).toMatch(/--compact compacts a stored session with the agent preset/);
    const noModel = memoryIo(dir);
    expect(await main(build(['--compact']), noModel)).not.toBe(0);
    expect(noModel.err()).toMatch(/model/i);
  });
});
