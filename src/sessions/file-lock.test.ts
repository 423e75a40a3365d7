import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

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

describe('withFileLock', () => {
  it('holds the lock file during the task and removes it afterwards, even on failure', async () => {
    const lock = path.join(dir, 'a.lock');
    const seen = await withFileLock({ path: lock }, async () => readFile(lock, 'utf8'));
    expect(seen).toMatch(new RegExp(`^${process.pid} \\d+\\n$`));
    expect(await exists(lock)).toBe(false);
    await expect(withFileLock({ path: lock }, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await exists(lock)).toBe(false);
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

  it('breaks a lock older than staleMs even when its pid is alive', async () => {
    const lock = path.join(dir, 'd.lock');
    await writeFile(lock, `${process.pid} 0\n`);
    const old = new Date(Date.parse('2020-01-01T00:00:00Z'));
    await utimes(lock, old, old);
    expect(await withFileLock({ path: lock, staleMs: 1000, timeoutMs: 2000 }, async () => 'got it')).toBe(
      'got it',
    );
  });

  it('gives up with STORE_UNAVAILABLE while a live, fresh lock is held', async () => {
    const lock = path.join(dir, 'e.lock');
    await writeFile(lock, `${process.pid} 0\n`);
    await expect(withFileLock({ path: lock, timeoutMs: 50 }, async () => 'never')).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('within 50 ms'),
    });
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
});
