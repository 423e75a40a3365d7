import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../core/index.js';
import { JsonlSessionStore } from '../index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-epipe-'));
  // Far more output than a pipe buffers (64 KiB), so the CLI is still writing when the reader leaves.
  const messages = Array.from({ length: 4_000 }, (_, index) =>
    index % 2 === 0
      ? user(`question ${index} ${'q'.repeat(120)}`)
      : assistant(`answer ${index} ${'a'.repeat(120)}`),
  );
  await new JsonlSessionStore({ dir: path.join(dir, 'sessions') }).append('cli:big', messages);
  await writeFile(
    path.join(dir, 'history.json'),
    JSON.stringify(messages.map((message) => ({ role: message.role, content: message.content }))),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI (bin.ts under tsx) with stdout piped into a reader that closes the pipe after the
 * first chunk, as `| head -1` does; resolves to the exit code, the signal and stderr.
 */
function runClosedEarly(args: readonly string[]) {
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'src/cli/bin.ts'), ...args],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let chunks = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.once('data', () => {
    chunks += 1;
    child.stdout.destroy();
  });
  return new Promise<{ code: number | null; signal: string | null; stderr: string; chunks: number }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr, chunks })),
  );
}

describe('a reader that closes stdout early', () => {
  it.each([
    ['session show', ['session', 'show', 'cli:big', '--sessions', 'sessions']],
    ['session show --json', ['session', 'show', 'cli:big', '--sessions', 'sessions', '--json']],
    ['build', ['build', '--workspace', '.', '--history', 'history.json', '--no-summary', 'hi']],
  ])(
    'ends %s quietly with exit 0 (no EPIPE, no stack)',
    async (_name, args) => {
      const result = await runClosedEarly(args);
      expect(result.chunks).toBe(1);
      expect(result.stderr).not.toMatch(/EPIPE|Error|\n {4}at /);
      expect(result).toMatchObject({ code: 0, signal: null });
    },
    60_000,
  );
});
