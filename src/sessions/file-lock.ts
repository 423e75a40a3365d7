import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { hasErrorCode } from '../workspace/fs-helpers.js';
import { removeStaleTempFiles, tempFileFor } from './ctxloom-temp-file.js';
import { isProcessAlive } from './is-process-alive.js';

/** Options for {@link withFileLock}. */
export type FileLockOptions = {
  /** The lock file's path. */
  readonly path: string;
  /** Give up after this long. @default 30000 */
  readonly timeoutMs?: number;
  /**
   * A lock whose holder is alive is still broken when it has not been refreshed for this long (a hung
   * holder, or its pid reused by another process). The holder refreshes it every `staleMs / 3`.
   * @default 60000
   */
  readonly staleMs?: number;
  /** The clock, used for the age checks and the timeout. @default the system clock */
  readonly now?: () => number;
  /** Aborts the wait. */
  readonly signal?: AbortSignal;
};

/** An empty or unreadable lock (not one of ours: ours are never empty) is stale after this long, or half the timeout. */
const FOREIGN_LOCK_STALE_MS = 2_000;
/** Link errors of file systems without hard links; the lock then falls back to `O_EXCL` creation. */
const NO_HARD_LINKS = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'];

const systemNow = (): number => performance.timeOrigin + performance.now();

type Resolved = Required<Omit<FileLockOptions, 'signal'>> & { readonly signal: AbortSignal | undefined };
type Holder = { readonly pid: number | undefined; readonly content: string; readonly ageMs: number };

/**
 * Runs `task` while holding a cross-process lock file at `options.path` holding `pid time nonce`.
 * The lock is written to a temp file first and hard-linked into place, so it is never seen empty, even
 * when its writer is killed mid-way. While the task runs the holder refreshes the lock's mtime. A lock
 * left by a dead process (same host, checked with signal 0), one not refreshed for `staleMs`, or an
 * empty or foreign one older than 2 s is broken by renaming it aside, so only one waiter breaks it.
 * Release removes the lock only if it is still this holder's.
 * @throws ContextError `STORE_UNAVAILABLE` when the lock is not acquired within `timeoutMs`, naming the
 * lock file, its holder and how to remove it; `ABORTED` when `signal` aborts the wait.
 */
export async function withFileLock<T>(options: FileLockOptions, task: () => Promise<T>): Promise<T> {
  const resolved: Resolved = {
    path: options.path,
    timeoutMs: options.timeoutMs ?? 30_000,
    staleMs: options.staleMs ?? 60_000,
    now: options.now ?? systemNow,
    signal: options.signal,
  };
  const content = await acquire(resolved);
  const refresh = setInterval(() => {
    const seconds = resolved.now() / 1000;
    void utimes(resolved.path, seconds, seconds).catch(() => undefined);
  }, resolved.staleMs / 3);
  refresh.unref();
  try {
    return await task();
  } finally {
    clearInterval(refresh);
    await release(resolved.path, content);
  }
}

/** Takes the lock; resolves to its content, which identifies this hold. */
async function acquire(options: Resolved): Promise<string> {
  const started = options.now();
  const temp = tempFileFor(options.path);
  const content = `${process.pid} ${Math.round(started)} ${randomBytes(8).toString('hex')}\n`;
  try {
    await writeFile(temp, content, { flag: 'wx', mode: 0o600 });
    let delay = 1;
    for (;;) {
      if (options.signal?.aborted === true) {
        throw new ContextError({
          code: 'ABORTED',
          message: `Aborted while waiting for lock ${options.path}.`,
        });
      }
      if (await place({ temp, lockPath: options.path, content })) {
        await refreshAfterWait(options, started);
        return content;
      }
      const holder = await inspect(options);
      if (holder !== undefined && isStale(holder, options)) {
        await breakLock(options, holder);
        continue;
      }
      if (options.now() - started > options.timeoutMs) throw timeout(options, holder);
      await sleep(delay);
      delay = Math.min(delay * 2, 20);
    }
  } catch (error) {
    throw ContextError.isInstance(error) ? error : wrap(options.path, error);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Hard-links the prepared lock into place; false when another holder has it. */
async function place(lock: {
  readonly temp: string;
  readonly lockPath: string;
  readonly content: string;
}): Promise<boolean> {
  try {
    await link(lock.temp, lock.lockPath);
    return true;
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    if (!NO_HARD_LINKS.some((code) => hasErrorCode(error, code))) throw error;
  }
  try {
    await writeFile(lock.lockPath, lock.content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    throw error;
  }
}

/** After a long wait the lock's mtime is the temp file's; refresh it so the new hold is not judged stale. */
async function refreshAfterWait(options: Resolved, started: number): Promise<void> {
  if (options.now() - started <= 1_000) return;
  const seconds = options.now() / 1000;
  await utimes(options.path, seconds, seconds);
}

async function inspect(options: Resolved): Promise<Holder | undefined> {
  try {
    const handle = await open(options.path, 'r');
    try {
      const info = await handle.stat();
      const content = await handle.readFile('utf8');
      const pid = Number(content.trim().split(' ')[0]);
      return {
        pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
        content,
        ageMs: options.now() - info.mtimeMs,
      };
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

function isStale(holder: Holder, options: Resolved): boolean {
  if (holder.pid === undefined) return holder.ageMs > Math.min(FOREIGN_LOCK_STALE_MS, options.timeoutMs / 2);
  return !isProcessAlive(holder.pid) || holder.ageMs > options.staleMs;
}

/** Renames the stale lock aside and removes it; a fresh lock grabbed by mistake is linked back. */
async function breakLock(options: Resolved, stale: Holder): Promise<void> {
  const aside = tempFileFor(options.path);
  try {
    await rename(options.path, aside);
  } catch {
    return; // another waiter broke it first
  }
  const taken = await readFile(aside, 'utf8').catch(() => stale.content);
  if (taken !== stale.content) await link(aside, options.path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  await removeStaleTempFiles(path.dirname(options.path), {
    now: options.now,
    forName: path.basename(options.path),
  });
}

/** Removes the lock if it still holds this hold's content (inode numbers are reused too quickly to tell). */
async function release(lockPath: string, content: string): Promise<void> {
  const current = await readFile(lockPath, 'utf8').catch(() => undefined);
  if (current === content) await unlink(lockPath).catch(() => undefined);
}

function timeout(options: Resolved, holder: Holder | undefined): ContextError {
  const who =
    holder === undefined
      ? 'it was held by another process'
      : holder.pid === undefined
        ? 'the lock file is empty or not a ctxloom lock'
        : `it is held by process ${holder.pid} (running), refreshed ${Math.round(holder.ageMs / 1000)} s ago`;
  return new ContextError({
    code: 'STORE_UNAVAILABLE',
    message: `Could not acquire lock ${options.path} within ${options.timeoutMs} ms: ${who}. If no ctxloom process uses this store, remove the lock file (rm '${options.path}') and retry.`,
    details: { lockPath: options.path, ...(holder?.pid === undefined ? {} : { pid: holder.pid }) },
  });
}

function wrap(lockPath: string, error: unknown): ContextError {
  return new ContextError({
    code: 'STORE_UNAVAILABLE',
    message: `Could not create lock file ${lockPath}: ${error instanceof Error ? error.message : String(error)}.`,
    cause: error,
    details: { lockPath },
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
