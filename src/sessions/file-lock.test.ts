import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

const WORKER = fileURLToPath(new URL('../../test/fixtures/workers/file-lock-worker.ts', import.meta.url));
const LOCK_CONTENT = /^\d+ \d+ [0-9a-f]{16}\n$/;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const exists = async (file: string): Promise<boolean> =>
  stat(file).then(
    () => true,
    () => false,
  );

async function age(file: string, seconds: number): Promise<void> {
  const time = new Date(performance.timeOrigin + performance.now() - seconds * 1000);
  await utimes(file, time, time);
}

describe('withFileLock', () => {
  it('holds a `pid time nonce` lock during the task and leaves nothing behind, even on failure', async () => {
    const lock = path.join(dir, 'a.lock');
    const seen = await withFileLock({ path: lock }, async () => readFile(lock, 'utf8'));
    expect(seen).toMatch(new RegExp(`^${process.pid} \\d+ [0-9a-f]{16}\\n$`));
    expect(await readdir(dir)).toEqual([]);
    await expect(withFileLock({ path: lock }, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('serialises tasks on the same lock', async () => {
    const lock = path.join(dir, 'b.lock');
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(`${name}:start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(`${name}:end`);
    };
    await Promise.all([withFileLock({ path: lock }, task('a')), withFileLock({ path: lock }, task('b'))]);
    expect(order.join(' ')).toMatch(/^(\w):start \1:end (\w):start \2:end$/);
  });

  it('breaks a lock left by a dead process', async () => {
    const lock = path.join(dir, 'c.lock');
    await writeFile(lock, '999999999 0\n');
    expect(await withFileLock({ path: lock, timeoutMs: 2000 }, async () => 'got it')).toBe('got it');
  });

  it('breaks an empty lock (a writer killed before writing its pid) long before the timeout', async () => {
    const lock = path.join(dir, 'empty.lock');
    await writeFile(lock, '');
    await age(lock, 3);
    const started = performance.now();
    expect(await withFileLock({ path: lock, timeoutMs: 10_000 }, async () => 'got it')).toBe('got it');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('waits for a fresh empty lock for at most half the timeout', async () => {
    const lock = path.join(dir, 'fresh-empty.lock');
    await writeFile(lock, '');
    expect(await withFileLock({ path: lock, timeoutMs: 1_000 }, async () => 'got it')).toBe('got it');
  });

  it('breaks a lock not refreshed for staleMs even when its pid is alive', async () => {
    const lock = path.join(dir, 'd.lock');
    await writeFile(lock, `${process.pid} 0\n`);
    await age(lock, 3600);
    expect(await withFileLock({ path: lock, staleMs: 1000, timeoutMs: 2000 }, async () => 'got it')).toBe(
      'got it',
    );
  });

  it('keeps a long-held lock fresh, so a waiter with a short staleMs does not break it', async () => {
    const lock = path.join(dir, 'long.lock');
    const order: string[] = [];
    const holder = withFileLock({ path: lock, staleMs: 300 }, async () => {
      order.push('a:start');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      order.push('a:end');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiter = withFileLock({ path: lock, staleMs: 300, timeoutMs: 5_000 }, async () => {
      order.push('b:start');
    });
    await Promise.all([holder, waiter]);
    expect(order).toEqual(['a:start', 'a:end', 'b:start']);
  });

  it('releases only its own lock, never one that replaced it', async () => {
    const lock = path.join(dir, 'own.lock');
    await withFileLock({ path: lock }, async () => {
      await rm(lock);
      await writeFile(lock, '999999998 1 0000000000000000\n');
    });
    expect(await readFile(lock, 'utf8')).toBe('999999998 1 0000000000000000\n');
  });

  it('gives up with STORE_UNAVAILABLE naming the lock, its holder and how to remove it', async () => {
    const lock = path.join(dir, 'e.lock');
    await writeFile(lock, `${process.pid} 0\n`);
    const error = await withFileLock({ path: lock, timeoutMs: 50 }, async () => 'never').catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', details: { lockPath: lock, pid: process.pid } });
    expect(String(error)).toContain(`within 50 ms: it is held by process ${process.pid} (running)`);
    expect(String(error)).toContain(`rm '${lock}'`);
    expect(await exists(lock)).toBe(true);
  });

  it('stops waiting when aborted', async () => {
    const lock = path.join(dir, 'f.lock');
    await writeFile(lock, `${process.pid} 0\n`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(
      withFileLock({ path: lock, signal: controller.signal }, async () => 'never'),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('is never left empty or unusable when its holder is killed with SIGKILL at any moment', async () => {
    const lock = path.join(dir, 'killed.lock');
    for (let kill = 0; kill < 4; kill += 1) {
      const child = spawn(process.execPath, ['--import', 'tsx', WORKER, lock], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise((resolve) => child.on('close', resolve));
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('locked')) resolve();
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 3 + kill * 11));
      child.kill('SIGKILL');
      await exited;
      if (await exists(lock)) expect(await readFile(lock, 'utf8')).toMatch(LOCK_CONTENT);
      const started = performance.now();
      await withFileLock({ path: lock, timeoutMs: 5_000 }, async () => undefined);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  }, 60_000);
});
