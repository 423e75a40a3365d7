import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { JsonlSessionStore } from '../index.js';
import { tempFileFor } from './ctxloom-temp-file.js';

const WORKER = fileURLToPath(
  new URL('../../test/fixtures/workers/session-rewrite-worker.ts', import.meta.url),
);
const KEY = 'cli:big';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-killed-rewrite-'));
  const store = new JsonlSessionStore({ dir });
  await store.append(
    KEY,
    Array.from({ length: 1_000 }, (_, index) =>
      user(`message ${index} ${'x'.repeat(2_000)}`, { id: `m${index}` }),
    ),
  );
  await store.close();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const temps = async (): Promise<string[]> => (await readdir(dir)).filter((name) => name.endsWith('.tmp'));

/** Starts the worker and SIGKILLs it while one of its rewrites is writing a temp file. */
async function killMidRewrite(): Promise<void> {
  const before = new Set(await temps());
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dir, KEY], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  for (;;) {
    if ((await temps()).some((name) => !before.has(name))) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

describe('JsonlSessionStore: temp files of writers killed mid-rewrite', () => {
  it('are removed by the next load (a fresh store) and rewrite; a live writer’s never', {
    timeout: 60_000,
  }, async () => {
    for (let kill = 0; kill < 2; kill += 1) await killMidRewrite();
    const left = await temps();
    expect(left.length).toBeGreaterThanOrEqual(1);
    expect(left.every((name) => /\.ctxloom-[0-9a-f]{8}-\d+-[0-9a-f]{16}\.tmp$/.test(name))).toBe(true);
    // A temp file of a writer that is alive (this process), mid-write.
    const live = tempFileFor(path.join(dir, path.basename(new JsonlSessionStore({ dir }).filePath(KEY))));
    await writeFile(live, 'in progress');
    const store = new JsonlSessionStore({ dir });
    const record = await store.load(KEY);
    expect(record.messages).toHaveLength(1_000);
    expect(record.warnings).toEqual([]);
    expect(await temps()).toEqual([path.basename(live)]);
    await killMidRewrite();
    expect((await temps()).length).toBe(2);
    await store.setMetadata(KEY, { title: 'after the kills' });
    expect(await temps()).toEqual([path.basename(live)]);
    expect((await store.load(KEY)).messages).toHaveLength(1_000);
  });
});
