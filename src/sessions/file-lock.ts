import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { ContextError } from '../core/errors.js';

/** Options for {@link withFileLock}. */
export type FileLockOptions = {
  /** The lock file's path. */
  readonly path: string;
  /** Give up after this long. @default 30000 */
  readonly timeoutMs?: number;
  /** A lock whose holder is alive is still broken when older than this (pid reuse, hung holder). @default 60000 */
  readonly staleMs?: number;
  /** The clock, used for the age check and the timeout. @default the system clock */
  readonly now?: () => number;
  /** Aborts the wait. */
  readonly signal?: AbortSignal;
};

const systemNow = (): number => performance.timeOrigin + performance.now();

/**
 * Runs `task` while holding a cross-process lock file at `options.path`, created with `O_EXCL` (`wx`)
 * and holding `pid timestamp`. A lock left by a dead process (same host, checked with signal 0) or
 * older than `staleMs` is broken by renaming it aside, so only one waiter can break it.
 * @throws ContextError `STORE_UNAVAILABLE` when the lock is not acquired within `timeoutMs`.
 */
export async function withFileLock<T>(options: FileLockOptions, task: () => Promise<T>): Promise<T> {
  await acquire(options);
  try {
    return await task();
  } finally {
    await unlink(options.path).catch(() => undefined);
  }
}

async function acquire(options: FileLockOptions): Promise<void> {
  const lockPath = options.path;
  const now = options.now ?? systemNow;
  const started = now();
  let delay = 1;
  for (;;) {
    if (options.signal?.aborted === true) {
      throw new ContextError({ code: 'ABORTED', message: `Aborted while waiting for lock ${lockPath}.` });
    }
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(`${process.pid} ${Math.round(now())}\n`);
      await handle.close();
      return;
    } catch (error) {
      if (!isCode(error, 'EEXIST')) throw wrap(lockPath, error);
    }
    if (await isStale({ ...options, now })) {
      await breakLock(lockPath);
      continue;
    }
    if (now() - started > (options.timeoutMs ?? 30_000)) {
      throw new ContextError({
        code: 'STORE_UNAVAILABLE',
        message: `Could not acquire lock ${lockPath} within ${options.timeoutMs ?? 30_000} ms; another process holds it. Remove the file if no ctxloom process is running.`,
        details: { lockPath },
      });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 20);
  }
}

async function isStale(options: FileLockOptions & { readonly now: () => number }): Promise<boolean> {
  const { path: lockPath, now } = options;
  try {
    const text = await readFile(lockPath, 'utf8');
    const [pidText] = text.trim().split(' ');
    const pid = Number(pidText);
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return true;
    const info = await stat(lockPath);
    return now() - info.mtimeMs > (options.staleMs ?? 60_000);
  } catch {
    return false;
  }
}

async function breakLock(lockPath: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${Math.round(performance.now() * 1000)}`;
  try {
    await rename(lockPath, aside);
    await unlink(aside);
  } catch {
    // another waiter broke it first
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isCode(error, 'EPERM');
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

function wrap(lockPath: string, error: unknown): ContextError {
  return new ContextError({
    code: 'STORE_UNAVAILABLE',
    message: `Could not create lock file ${lockPath}: ${error instanceof Error ? error.message : String(error)}.`,
    cause: error,
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
