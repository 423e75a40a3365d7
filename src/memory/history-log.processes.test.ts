import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryLog } from './history-log.js';

const WORKER = fileURLToPath(
  new URL('../../test/fixtures/workers/history-append-worker.ts', import.meta.url),
);
let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-history-proc-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function run(prefix: string): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, workspace, '150', prefix], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`worker exited ${code}`)),
    ),
  );
}

describe('HistoryLog across processes', () => {
  it('gives two concurrent writers unique, strictly increasing cursors', async () => {
    const [first, second] = await Promise.all([run('a'), run('b')]);
    for (const cursors of [first, second]) expect(cursors).toEqual([...cursors].sort((x, y) => x - y));
    const all = [...first, ...second].sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 300 }, (_, index) => index + 1));
    const entries = await new HistoryLog({ workspace }).readWithWarnings();
    expect(entries.warnings).toEqual([]);
    expect(entries.entries.map((entry) => entry.cursor)).toEqual(all);
  }, 120_000);
});
