// Over 300 lines: one class per the SessionStore contract; file parsing, locking and naming live in their own files.
import { appendFile, mkdir, open, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ContextError, SessionStoreError, throwIfAborted } from '../core/errors.js';
import type { Message, Metadata } from '../core/message.js';
import { atomicWriteFile } from '../workspace/atomic-write.js';
import { endsWithNewline, fileExists, hasErrorCode, readTextOrEmpty } from '../workspace/fs-helpers.js';
import { checkSessionKey } from './check-session-key.js';
import { withFileLock } from './file-lock.js';
import {
  formatMessageLine,
  formatSessionFile,
  type ParsedSessionFile,
  parseSessionFile,
} from './jsonl-session-file.js';
import { KeyedQueue } from './keyed-queue.js';
import { ListenerSet } from './listener-set.js';
import { compareKeys, mergeMetadata } from './merge-metadata.js';
import { checkRewriteCount } from './rewrite-conflict.js';
import { sessionFileName, sessionKeyFromFileName } from './session-file-name.js';
import type {
  MessageEventListener,
  SessionRecord,
  SessionRewrite,
  SessionStore,
  SessionSummary,
  StoreCallOptions,
} from './session-store.js';
import { emptySessionRecord } from './session-store.js';
import { clampLastConsolidated, stampMessage } from './stamp-message.js';

/** How long `withSessionLock` waits, and after how long a lock with a live holder counts as stale (1 hour). */
const SESSION_LOCK_TIMEOUT_MS = 3_600_000;

/** Options for {@link JsonlSessionStore}. */
export type JsonlSessionStoreOptions = {
  /** The sessions folder (for a workspace, conventionally `<workspace>/sessions`). */
  readonly dir: string;
  /** The clock for timestamps. @default the system clock */
  readonly now?: () => Date;
  /** Fsync after every append (survives power loss, not just process crashes; slower). @default false */
  readonly fsync?: boolean;
  /** How long to wait for another process's lock. @default 30000 */
  readonly lockTimeoutMs?: number;
};

/**
 * A {@link SessionStore} in nanobot's session file format (one `{base64url(key)}.jsonl` per session:
 * a metadata record, then one message dict per line), reading existing nanobot files as they are.
 *
 * - `append` appends lines under a per-session cross-process lock (`<file>.lock`); it never rewrites
 *   the file, so the metadata record's `updated_at` may be stale on disk. `load` reports the later
 *   of it and the last message's timestamp.
 * - Metadata changes, the archive pointer and `rewrite` replace the file atomically (temp file created
 *   exclusively with mode 0600, fsync, rename, folder fsync).
 * - A torn or corrupt line is skipped, reported in `warnings`, and moved (appended) to `<file>.corrupt`;
 *   it is never destroyed. An acknowledged append survives a crash of the writing process.
 * - Events reach subscribers of this store object only (no cross-process delivery).
 */
export class JsonlSessionStore implements SessionStore {
  readonly specificationVersion = 'v1';
  readonly id = 'jsonl';
  /** The sessions folder. */
  readonly dir: string;
  readonly #queue = new KeyedQueue();
  readonly #listeners = new ListenerSet();
  readonly #now: () => Date;
  readonly #fsync: boolean;
  readonly #lockTimeoutMs: number;
  #dirReady: Promise<void> | undefined;

  constructor(options: JsonlSessionStoreOptions) {
    this.dir = path.resolve(options.dir);
    this.#now = options.now ?? (() => new Date());
    this.#fsync = options.fsync ?? false;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  /**
   * The sessions of an agent workspace: `<workspace>/sessions` (nanobot keeps them outside the workspace;
   * pass `{ dir }` to the constructor to point at such a folder).
   */
  static forWorkspace(
    workspace: string,
    options: Omit<JsonlSessionStoreOptions, 'dir'> = {},
  ): JsonlSessionStore {
    return new JsonlSessionStore({ ...options, dir: path.join(workspace, 'sessions') });
  }

  /** The file a session is stored in. */
  filePath(sessionKey: string): string {
    return path.join(this.dir, sessionFileName(sessionKey));
  }

  async append(
    sessionKey: string,
    messages: readonly Message[],
    options: StoreCallOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    if (messages.length === 0) return;
    const time = this.#now().toISOString();
    const stamped = messages.map((message) => stampMessage(message, time));
    await this.#locked(sessionKey, 'append', async (file) => {
      if (!(await fileExists(file))) {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        const content = {
          key: sessionKey,
          createdAt: time,
          updatedAt: time,
          metadata: {},
          lastConsolidated: 0,
        };
        await atomicWriteFile(file, formatSessionFile({ ...content, messages: stamped }));
        return;
      }
      const prefix = (await endsWithNewline(file)) ? '' : '\n';
      await appendFile(file, `${prefix}${stamped.map(formatMessageLine).join('\n')}\n`);
      if (this.#fsync) await syncFile(file);
    });
    for (const message of stamped) this.#listeners.emit({ type: 'message-appended', sessionKey, message });
  }

  async load(sessionKey: string, options: StoreCallOptions = {}): Promise<SessionRecord> {
    throwIfAborted(options.signal);
    return this.#locked(sessionKey, 'load', async (file) => {
      const { parsed, warnings, exists } = await this.#read(sessionKey, file);
      if (!exists) return emptySessionRecord(sessionKey, warnings);
      const updatedAt = latest(parsed.updatedAt, lastTimestamp(parsed.messages));
      return {
        key: sessionKey,
        messages: parsed.messages,
        metadata: parsed.metadata,
        lastConsolidated: parsed.lastConsolidated,
        ...(parsed.createdAt === undefined ? {} : { createdAt: parsed.createdAt }),
        ...(updatedAt === undefined ? {} : { updatedAt }),
        exists: true,
        warnings,
      };
    });
  }

  async setMetadata(sessionKey: string, patch: Metadata, options: StoreCallOptions = {}): Promise<void> {
    await this.#update(sessionKey, options, (parsed) => ({
      metadata: mergeMetadata(parsed.metadata, patch),
    }));
  }

  async setLastConsolidated(
    sessionKey: string,
    value: number,
    options: StoreCallOptions = {},
  ): Promise<void> {
    await this.#update(sessionKey, options, (parsed) => ({
      lastConsolidated: clampLastConsolidated(value, parsed.messages.length),
    }));
  }

  async rewrite(sessionKey: string, rewrite: SessionRewrite, options: StoreCallOptions = {}): Promise<void> {
    const time = this.#now().toISOString();
    const messages = rewrite.messages.map((message) => stampMessage(message, time));
    await this.#update(sessionKey, options, (parsed) => {
      checkRewriteCount(rewrite, { backend: 'jsonl', actual: parsed.messages.length });
      const last = rewrite.lastConsolidated ?? parsed.lastConsolidated;
      return { messages, lastConsolidated: clampLastConsolidated(last, messages.length) };
    });
  }

  async delete(sessionKey: string, options: StoreCallOptions = {}): Promise<boolean> {
    throwIfAborted(options.signal);
    return this.#locked(sessionKey, 'delete', async (file) => {
      try {
        await unlink(file);
        return true;
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT')) return false;
        throw error;
      }
    });
  }

  async list(options: StoreCallOptions = {}): Promise<readonly SessionSummary[]> {
    throwIfAborted(options.signal);
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return [];
      throw this.#error('list', error);
    }
    const summaries: SessionSummary[] = [];
    for (const name of names.filter((entry) => entry.endsWith('.jsonl'))) {
      const parsed = parseSessionFile(await readTextOrEmpty(path.join(this.dir, name)));
      const key = parsed.key ?? sessionKeyFromFileName(name);
      if (key === undefined) continue;
      const updatedAt = latest(parsed.updatedAt, lastTimestamp(parsed.messages));
      summaries.push({
        key,
        messageCount: parsed.messages.length,
        ...(parsed.createdAt === undefined ? {} : { createdAt: parsed.createdAt }),
        ...(updatedAt === undefined ? {} : { updatedAt }),
      });
    }
    return summaries.sort(compareKeys);
  }

  /** A cross-process lock file `<file>.session.lock`, held for as long as the task runs (broken only if its process died). */
  async withSessionLock<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    checkSessionKey(sessionKey, { backend: 'jsonl', operation: 'lock' });
    const lockPath = `${this.filePath(sessionKey)}.session.lock`;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return withFileLock(
      { path: lockPath, timeoutMs: SESSION_LOCK_TIMEOUT_MS, staleMs: SESSION_LOCK_TIMEOUT_MS },
      task,
    );
  }

  subscribe(listener: MessageEventListener): () => void {
    return this.#listeners.add(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }

  async #update(
    sessionKey: string,
    options: StoreCallOptions,
    change: (
      parsed: ParsedSessionFile,
    ) => Partial<Pick<ParsedSessionFile, 'metadata' | 'lastConsolidated' | 'messages'>>,
  ): Promise<void> {
    throwIfAborted(options.signal);
    await this.#locked(sessionKey, 'update', async (file) => {
      const { parsed } = await this.#read(sessionKey, file);
      const time = this.#now().toISOString();
      const next = { ...parsed, ...change(parsed) };
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await atomicWriteFile(
        file,
        formatSessionFile({
          key: sessionKey,
          createdAt: parsed.createdAt ?? time,
          updatedAt: time,
          metadata: next.metadata,
          lastConsolidated: clampLastConsolidated(next.lastConsolidated, next.messages.length),
          ...(parsed.providerState === undefined ? {} : { providerState: parsed.providerState }),
          messages: next.messages,
        }),
      );
    });
  }

  /** Reads and parses a session file under the lock; moves corrupt lines aside and repairs the file. */
  async #read(
    sessionKey: string,
    file: string,
  ): Promise<{ parsed: ParsedSessionFile; warnings: string[]; exists: boolean }> {
    const text = await readTextOrEmpty(file);
    const parsed = parseSessionFile(text);
    const exists = parsed.key !== undefined || parsed.messages.length > 0;
    if (parsed.corrupt.length === 0)
      return { parsed, warnings: [], exists: exists || (await fileExists(file)) };
    const aside = `${file}.corrupt`;
    await appendFile(aside, `${parsed.corrupt.map((line) => line.text).join('\n')}\n`, { mode: 0o600 });
    const warnings = parsed.corrupt.map(
      (line) =>
        `Session ${JSON.stringify(sessionKey)}: line ${line.line} skipped (${line.reason}); kept in ${aside}.`,
    );
    if (!exists) await unlink(file);
    else {
      const time = this.#now().toISOString();
      await atomicWriteFile(
        file,
        formatSessionFile({
          key: sessionKey,
          createdAt: parsed.createdAt ?? time,
          updatedAt: latest(parsed.updatedAt, lastTimestamp(parsed.messages)) ?? time,
          metadata: parsed.metadata,
          lastConsolidated: parsed.lastConsolidated,
          ...(parsed.providerState === undefined ? {} : { providerState: parsed.providerState }),
          messages: parsed.messages,
        }),
      );
    }
    return { parsed, warnings, exists };
  }

  #locked<T>(sessionKey: string, operation: string, task: (file: string) => Promise<T>): Promise<T> {
    checkSessionKey(sessionKey, { backend: 'jsonl', operation });
    const file = this.filePath(sessionKey);
    return this.#queue.run(sessionKey, async () => {
      this.#dirReady ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined);
      await this.#dirReady;
      try {
        return await withFileLock({ path: `${file}.lock`, timeoutMs: this.#lockTimeoutMs }, () => task(file));
      } catch (error) {
        throw this.#error(operation, error);
      }
    });
  }

  #error(operation: string, error: unknown): ContextError {
    if (ContextError.isInstance(error)) return error;
    return new SessionStoreError({
      code: 'STORE_UNAVAILABLE',
      backend: 'jsonl',
      operation,
      message: `JSONL session store ${operation} failed in ${this.dir}: ${error instanceof Error ? error.message : String(error)}.`,
      cause: error,
    });
  }
}

async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function lastTimestamp(messages: readonly Message[]): string | undefined {
  const value = messages.at(-1)?.metadata?.['timestamp'];
  return typeof value === 'string' ? value : undefined;
}

function latest(left: string | undefined, right: string | undefined): string | undefined {
  if (left === undefined) return right;
  if (right === undefined) return left;
  const leftTime = Date.parse(left);
  const rightTime = Date.parse(right);
  if (Number.isNaN(rightTime)) return left;
  if (Number.isNaN(leftTime)) return right;
  return rightTime > leftTime ? right : left;
}
