import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../test/helpers/memory-io.js';
import {
  closedServerURL,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { HistoryLog } from '../index.js';
import { EXIT_CODES } from './exit-codes.js';
import { main } from './main.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-exit-codes-'));
  await cp(path.join(ROOT, 'examples/workspace'), path.join(dir, 'ws'), { recursive: true });
  // Unprocessed history entries, so `memory write` calls the model.
  const log = new HistoryLog({ workspace: path.join(dir, 'ws') });
  for (let index = 1; index <= 3; index += 1) await log.append(`- [durable] fact ${index}`);
  await writeFile(
    path.join(dir, 'lossy.json'),
    JSON.stringify([
      { role: 'user', content: 'List the files' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call.1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call.1', content: 'a.txt' },
    ]),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The rows of the table in docs/cli-exit-codes.md: code and name. */
async function documentedCodes(): Promise<readonly { code: number; name: string }[]> {
  const doc = await readFile(path.join(ROOT, 'docs/cli-exit-codes.md'), 'utf8');
  return [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((match) => ({
    code: Number(match[1]),
    name: (match[2] ?? '').trim(),
  }));
}

/** `memory write` against a scripted model that answers with `script`. */
async function memoryWrite(script: readonly ScriptedReply[], unreachable = false) {
  const server = await startScriptedOpenAIServer(script);
  try {
    const url = unreachable ? await closedServerURL() : server.baseURL;
    const io = memoryIo(dir, { CTXLOOM_MODEL_URL: url, CTXLOOM_MODEL: 'm' });
    const flags = [
      '--workspace',
      'ws',
      '--max-retries',
      '1',
      '--retry-delay-ms',
      '1',
      '--timeout-ms',
      '10000',
    ];
    return { code: await main(['memory', 'write', ...flags], io), err: io.err() };
  } finally {
    await server.close();
  }
}

/** The invocation that provokes each documented code, and what stderr says. */
const PROVOKE: Readonly<Record<number, () => Promise<{ code: number; err: string; expected: RegExp }>>> = {
  0: async () => {
    const io = memoryIo(dir);
    return { code: await main(['--version'], io), err: io.err(), expected: /^$/ };
  },
  1: async () => {
    // stdout on a full disk: an error ctxloom does not classify, from the real bin.
    const full = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', '--version'], {
        cwd: ROOT,
        stdio: ['ignore', full, 'pipe'],
      });
      let err = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const code = await new Promise<number>((resolve) => child.once('exit', (exit) => resolve(exit ?? -1)));
      return { code, err, expected: /^UNEXPECTED: cannot write the output \(ENOSPC/ };
    } finally {
      closeSync(full);
    }
  },
  2: async () => {
    const io = memoryIo(dir);
    const code = await main(['build', '--wokspace', 'ws', 'hi'], io);
    return { code, err: io.err(), expected: /^INVALID_OPTIONS: Unknown option --wokspace/ };
  },
  3: async () => {
    const io = memoryIo(dir);
    const args = ['build', '--workspace', 'ws', '--preset', 'agent', '--max-tokens', '300', 'hi'];
    return { code: await main(args, io), err: io.err(), expected: /^BUDGET_UNSATISFIABLE: / };
  },
  4: async () => {
    const io = memoryIo(dir);
    const code = await main(['session', 'list', '--pg', await pgNobodyListens()], io);
    return {
      code,
      err: io.err(),
      expected: /^STORE_UNAVAILABLE: Cannot reach PostgreSQL .*connection refused/,
    };
  },
  5: async () => {
    const io = memoryIo(dir);
    const args = ['build', '--workspace', 'ws', '--history', 'lossy.json', '--format', 'anthropic'];
    const code = await main([...args, '--strict-format', 'hi'], io);
    return { code, err: io.err(), expected: /^ADAPTER_UNSUPPORTED: --format anthropic cannot carry/ };
  },
  6: async () => ({ ...(await memoryWrite([], true)), expected: /^MODEL_REQUEST_FAILED: / }),
  7: async () => ({
    ...(await memoryWrite([{ kind: 'reply', content: '- half a fa', finishReason: 'length' }])),
    expected: /^SUMMARISER_FAILED: .*output limit/,
  }),
  8: async () => ({
    ...(await memoryWrite([
      { kind: 'status', status: 500 },
      { kind: 'status', status: 500 },
    ])),
    expected: /^MODEL_REQUEST_FAILED: .*HTTP 500/,
  }),
};

/** A postgres:// URL on a local port where nothing listens. */
async function pgNobodyListens(): Promise<string> {
  const url = new URL(await closedServerURL());
  return `postgres://postgres@127.0.0.1:${url.port}/none`;
}

describe('the exit code table of docs/cli-exit-codes.md', () => {
  it('lists exactly the codes of EXIT_CODES', async () => {
    const documented = await documentedCodes();
    expect(documented.map((row) => row.code)).toEqual(Object.values(EXIT_CODES));
  });

  it.skipIf(!existsSync('/dev/full'))(
    'provokes every documented code with a real invocation',
    async () => {
      const documented = await documentedCodes();
      expect(Object.keys(PROVOKE).map(Number)).toEqual(documented.map((row) => row.code));
      for (const { code, name } of documented) {
        const provoke = PROVOKE[code];
        if (provoke === undefined) throw new Error(`no invocation provokes exit code ${code} (${name})`);
        const result = await provoke();
        expect(result.code, `${code} (${name}): ${result.err}`).toBe(code);
        expect(result.err, `${code} (${name})`).toMatch(result.expected);
      }
    },
    120_000,
  );
});
