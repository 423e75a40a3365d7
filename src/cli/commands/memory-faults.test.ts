import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import {
  closedServerURL,
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../../test/helpers/scripted-openai-server.js';
import { assistant, user } from '../../core/index.js';
import { HistoryLog, JsonlSessionStore } from '../../index.js';
import { main } from '../main.js';

// Fault injection: `ctxloom memory consolidate` and `memory write` run in-process against a scripted
// model server for every failure mode. Configuration failures and unusable replies must leave every
// byte of the workspace as it was; transient failures raw-archive (consolidate) or write nothing (write).

let dir: string;
let server: ScriptedOpenAIServer | undefined;
const MEMORY = '# Memory\n- The user lives in Berlin.\n- Works night shifts as a nurse.\n';

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-faults-'));
  const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
  const messages = Array.from({ length: 20 }, (_, index) =>
    index % 2 === 0
      ? user(`question ${index} ${'q'.repeat(400)}`)
      : assistant(`answer ${index} ${'a'.repeat(400)}`),
  );
  await store.append('cli:direct', messages);
  await mkdir(path.join(dir, 'memory'));
  await writeFile(path.join(dir, 'memory', 'MEMORY.md'), MEMORY);
  await chmod(path.join(dir, 'memory', 'MEMORY.md'), 0o644);
  const log = new HistoryLog({ workspace: dir });
  for (let index = 1; index <= 3; index += 1) await log.append(`- [durable] earlier fact ${index}`);
  await log.writeDreamCursor(1);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Every file under the workspace with its bytes and permission bits. */
async function snapshot(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const mode = ((await stat(full)).mode & 0o777).toString(8);
        files[path.relative(dir, full)] = `${mode} ${(await readFile(full)).toString('base64')}`;
      }
    }
  };
  await walk(dir);
  return files;
}

type Mode = {
  readonly name: string;
  /** The server's answers (enough for the attempts the client makes). */
  readonly script: readonly ScriptedReply[];
  readonly kind: 'configuration' | 'transient' | 'unusable-reply';
  /** What stderr must contain. */
  readonly message: RegExp;
  /** Use an address where nothing listens instead of the server. */
  readonly unreachable?: boolean;
  /** Use this base URL instead of the server. */
  readonly url?: string;
};

const twice = (reply: ScriptedReply): ScriptedReply[] => [reply, reply];

const MODES: readonly Mode[] = [
  {
    name: '401',
    script: [{ kind: 'status', status: 401 }],
    kind: 'configuration',
    message: /HTTP 401.*check the API key/,
  },
  {
    name: '403',
    script: [{ kind: 'status', status: 403 }],
    kind: 'configuration',
    message: /HTTP 403.*permissions/,
  },
  {
    name: '404 (unknown model)',
    script: [{ kind: 'status', status: 404, body: '{"error":{"message":"The model `m` does not exist"}}' }],
    kind: 'configuration',
    message: /HTTP 404.*does not exist.*model name 'm'/,
  },
  { name: 'unreachable host', script: [], kind: 'configuration', message: /ECONNREFUSED/, unreachable: true },
  {
    // fetch refuses ports such as 6000 (X11) as "bad port" before connecting: it never works, so once.
    name: 'a port fetch refuses',
    script: [],
    kind: 'configuration',
    message:
      /http:\/\/127\.0\.0\.1:6000\/v1\/chat\/completions: fetch refuses port 6000[^\n]*\. Run the model server on another port/,
    url: 'http://127.0.0.1:6000/v1',
  },
  {
    name: '429',
    script: twice({ kind: 'status', status: 429 }),
    kind: 'transient',
    message: /HTTP 429.*after 2 attempts/,
  },
  {
    name: '500',
    script: twice({ kind: 'status', status: 500 }),
    kind: 'transient',
    message: /HTTP 500.*after 2 attempts/,
  },
  { name: 'timeout', script: twice({ kind: 'hang' }), kind: 'transient', message: /no answer within 300 ms/ },
  {
    name: 'connection reset',
    script: twice({ kind: 'reset' }),
    kind: 'transient',
    message: /closed before the answer was complete.*after 2 attempts/,
  },
  {
    name: 'truncated JSON',
    script: twice({ kind: 'truncated' }),
    kind: 'transient',
    message: /JSON body is incomplete/,
  },
  {
    name: 'finish_reason length',
    script: [{ kind: 'reply', content: '- [durable] half a fa', finishReason: 'length' }],
    kind: 'unusable-reply',
    message: /stopped at the output limit/,
  },
  {
    name: 'content_filter',
    script: [{ kind: 'reply', content: '- [durable] part', finishReason: 'content_filter' }],
    kind: 'unusable-reply',
    message: /content filter stopped it/,
  },
  {
    name: 'no finish reason',
    script: [{ kind: 'reply', content: MEMORY, finishReason: null }],
    kind: 'unusable-reply',
    message: /has no finish reason/,
  },
  {
    name: 'reasoning-only',
    script: [{ kind: 'reply', content: '<think>The user said they live in Berlin', reasoning: 'hmm' }],
    kind: 'unusable-reply',
    message: /holds only reasoning/,
  },
  { name: 'empty', script: [{ kind: 'reply', content: '' }], kind: 'unusable-reply', message: /is empty/ },
];

// A window small enough that the 20 messages are over budget: one round archives messages 0–12.
const CONSOLIDATE = ['consolidate', '--context-window', '3000', '--max-output', '100', '--plain-prompt'];

const EXIT = { configuration: 6, 'unusable-reply': 7, transient: 8 } as const;
const CODE = {
  configuration: 'MODEL_REQUEST_FAILED',
  'unusable-reply': 'SUMMARISER_FAILED',
  transient: 'MODEL_REQUEST_FAILED',
} as const;

async function run(mode: Mode, command: readonly string[]) {
  server = await startScriptedOpenAIServer(mode.script);
  const url = mode.url ?? (mode.unreachable === true ? await closedServerURL() : server.baseURL);
  const io = memoryIo(dir, { CTXLOOM_MODEL_URL: url, CTXLOOM_MODEL: 'm' });
  const timeout = mode.name === 'timeout' ? '300' : '10000';
  const flags = ['--timeout-ms', timeout, '--max-retries', '1', '--retry-delay-ms', '1'];
  const code = await main(['memory', ...command, ...flags], io);
  return { code, io };
}

describe('ctxloom memory under model failures', () => {
  it.each(MODES)('consolidate on $name: exit code, message, and nothing lost', async (mode) => {
    const before = await snapshot();
    const { code, io } = await run(mode, CONSOLIDATE);
    expect(code).toBe(EXIT[mode.kind]);
    expect(io.err()).toMatch(mode.message);
    expect(io.err()).toContain(`${CODE[mode.kind]}`);
    if (mode.kind === 'configuration') expect(io.err()).not.toMatch(/attempts|work again later/);
    const after = await snapshot();
    if (mode.kind !== 'transient') {
      expect(io.err()).toContain('Nothing was archived; cli:direct stays archived up to message 0.');
      expect(io.out()).toBe('');
      expect(after).toEqual(before);
      return;
    }
    // Transient: nanobot's raw archive of the chunk, reported, and nothing else touched.
    expect(io.err()).toMatch(
      /Degraded: archived messages 0–12 of cli:direct raw \(1 \[RAW\] entry in memory\/history\.jsonl/,
    );
    expect(io.out()).toMatch(/^cli:direct: degraded in 1 round \(raw@0–12\)/);
    const log = new HistoryLog({ workspace: dir });
    const entries = await log.read();
    expect(entries.map((entry) => entry.cursor)).toEqual([1, 2, 3, 4]);
    expect(entries[3]?.content).toMatch(/^\[RAW\] 12 messages\n\[.{16}\] USER: question 0 q{400}\n/);
    expect(entries[3]?.content.split('\n')).toHaveLength(13);
    const record = await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).load('cli:direct');
    expect(record.lastConsolidated).toBe(12);
    expect(record.messages).toHaveLength(20);
    expect(record.metadata['_last_summary']).toBeUndefined();
    const unchanged = Object.keys(before).filter(
      (file) => !/^(sessions\/|memory\/history\.jsonl|memory\/\.cursor)/.test(file),
    );
    for (const file of unchanged) expect(after[file]).toBe(before[file]);
  });

  it.each(MODES)(
    'write on $name: exit code, message, and MEMORY.md, its mode and the cursors unchanged',
    async (mode) => {
      const before = await snapshot();
      const { code, io } = await run(mode, ['write']);
      expect(code).toBe(EXIT[mode.kind]);
      expect(io.err()).toMatch(mode.message);
      expect(io.err()).toMatch(new RegExp(`^${CODE[mode.kind]}: `));
      expect(io.err()).toContain(
        'MEMORY.md and the Dream cursor are unchanged; history entries 2–3 are retried next run.',
      );
      expect(io.out()).toBe('');
      expect(await snapshot()).toEqual(before);
    },
  );

  it('both commands succeed on a usable reply, for contrast', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: '<think>short</think>- [durable] The user asks long questions' },
      { kind: 'reply', content: `${MEMORY}- Asks long questions.\n` },
    ]);
    const env = { CTXLOOM_MODEL_URL: server.baseURL, CTXLOOM_MODEL: 'm' };
    const consolidate = memoryIo(dir, env);
    expect(await main(['memory', ...CONSOLIDATE], consolidate)).toBe(0);
    expect(consolidate.out()).toMatch(/^cli:direct: consolidated in 1 round \(summary@0–/);
    const log = new HistoryLog({ workspace: dir });
    expect((await log.read()).at(-1)?.content).toBe('- [durable] The user asks long questions');
    const write = memoryIo(dir, env);
    expect(await main(['memory', 'write'], write)).toBe(0);
    expect(write.out()).toBe('Memory writer: updated, 3 entries processed, Dream cursor 4.\n');
    expect(await readFile(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')).toBe(
      `${MEMORY}- Asks long questions.\n`,
    );
    expect((await stat(path.join(dir, 'memory', 'MEMORY.md'))).mode & 0o777).toBe(0o644);
    const backups = await readdir(path.join(dir, 'memory', '.backups'));
    expect(await readFile(path.join(dir, 'memory', '.backups', backups[0] ?? ''), 'utf8')).toBe(MEMORY);
  });
});
