import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
let workspace = '';

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-serve-'));
  await cp(path.join(ROOT, 'examples/workspace'), workspace, { recursive: true });
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function run(args: readonly string[]) {
  let stderr = '';
  const code = await main(args, {
    stdout: { write: () => true },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
    env: {},
    cwd: workspace,
  });
  return { code, stderr };
}

describe('ctxloom serve', () => {
  it('serves the inspector on 127.0.0.1 and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'src/cli/bin.ts'),
        'serve',
        '--workspace',
        workspace,
        '--port',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /ctxloom inspector: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${out}`)));
      });
      const sessions = (await (await fetch(`${url}api/sessions`)).json()) as { sessions: { key: string }[] };
      expect(sessions.sessions.map((session) => session.key)).toEqual(['cli:direct', 'telegram:8281248569']);
      const context = await fetch(`${url}api/sessions/${encodeURIComponent('cli:direct')}/context`);
      expect(context.status).toBe(200);
      expect((await fetch(`${url}api/sessions`, { method: 'DELETE' })).status).toBe(405);
      expect((await fetch(url)).headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it('rejects a bad port and a port in use with INVALID_OPTIONS', async () => {
    const bad = await run(['serve', '--workspace', workspace, '--port', '70000']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^INVALID_OPTIONS: The port must be a whole number 0–65535, got 70000/);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const busy = await run(['serve', '--workspace', workspace, '--port', String(port)]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toMatch(
        new RegExp(`^INVALID_OPTIONS: Cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`),
      );
    } finally {
      blocker.close();
    }
  });
});
