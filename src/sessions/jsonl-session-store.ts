// Over 300 lines: one class per the SessionStore contract; reading, rewriting, naming and locking live in their own files.
import { appendFile, copyFile, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError, SessionStoreError, throwIfAborted } from '../core/errors.js';
import type { Message, Metadata } from '../core/message.js';
import { endsWithNewline, fileExists, hasErrorCode } from '../workspace/fs-helpers.js';
import { checkSessionKey } from './check-session-key.js';
import { removeStaleTempFiles } from './ctxloom-temp-file.js';
import { DEFAULT_MAX_LINE_BYTES } from './file-lines.js';
import { withFileLock } from './file-lock.js';
import { KeyedQueue } from './keyed-queue.js';
import { lastMessagesOf } from './last-messages.js';
import { latestTime } from './latest-time.js';
import { type JsonlSessionSummary, listSessionFiles } from './list-session-files.js';
import { ListenerSet } from './listener-set.js';
import { locateSessionFile, type SessionFolders } from './locate-session-file.js';
import { mergeMetadata } from './merge-metadata.js';
import { replaceFileAtomically } from './replace-file-atomically.js';
import { checkRewriteCount } from './rewrite-conflict.js';
import { type HeaderFields, rewriteSessionFile, type SessionFileRewrite } from './rewrite-session-file.js';
import { rewriteTimes } from './rewrite-times.js';
import type { SessionFileScan } from './scan-session-file.js';
import { sessionFileName } from './session-file-name.js';
import { SessionFileReads } from './session-file-reads.js';
import { formatHeaderLine, validLastConsolidated } from './session-header.js';
import { formatMessageLine } from './session-line.js';
import type {
  MessageEventListener,
  SessionLoadOptions,
  SessionRecord,
  SessionRewrite,
  SessionStore,
  SessionUpdateOptions,
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
  /**
   * Folders where older nanobot versions kept this workspace's sessions (its flat `~/.nanobot/sessions`,
   * `<workspace>/sessions`; see `resolveNanobotSessionsDir`). Their sessions are listed and loaded when
   * `dir` has no file for the key, and moved into `dir` on the first write, as nanobot migrates them.
   * @default []
   */
  readonly legacyDirs?: readonly string[];
  /** The clock for timestamps. @default the system clock */
  readonly now?: () => Date;
  /** Fsync after every append (survives power loss, not just process crashes; slower). @default false */
  readonly fsync?: boolean;
  /** How long to wait for another process's lock. @default 30000 */
  readonly lockTimeoutMs?: number;
  /** A line longer than this is unreadable: reported, kept on disk, never read into memory. @default 256 MiB */
  readonly maxLineBytes?: number;
  /**
   * How many bytes of session files the store keeps the last reads of (most recently loaded first, and
   * always the last one loaded, whatever its size), so that loading a session again reads only what
   * this store appended since (any other change reads the whole file again) and returns its old
   * messages as the same objects. 0 reads every file whole on every load.
   * @default 64 MiB
   */
  readonly cachedSessionBytes?: number;
};

/** The keys of {@link JsonlSessionStoreOptions}, for `checkOptions`. @internal */
export const JSONL_SESSION_STORE_OPTION_KEYS = {
  dir: true,
  legacyDirs: true,
  now: true,
  fsync: true,
  lockTimeoutMs: true,
  maxLineBytes: true,
  cachedSessionBytes: true,
} as const satisfies OptionKeys<JsonlSessionStoreOptions>;

/** Defaults of {@link JsonlSessionStoreOptions}. */
export const DEFAULT_JSONL_SESSION_STORE = Object.freeze({ cachedSessionBytes: 64 * 1024 * 1024 });

/** What {@link JsonlSessionStore.repair} did. */
export type SessionRepair = {
  /** Unreadable lines moved to `corruptFile`, with their original bytes. */
  readonly movedLines: number;
  /** Where they went (`<session file>.corrupt`). */
  readonly corruptFile: string;
};

/**
 * A {@link SessionStore} in nanobot's session file format (one `{base64url(key)}.jsonl` per session:
 * a metadata record, then one message dict per line), reading existing nanobot files as they are,
 * under current and legacy names (`cli_direct.jsonl`).
 *
 * - Reads never write a session: `load` and `list` stream the file (`list` reads only its first and
 *   last line) and report torn, corrupt or non-UTF-8 lines in `warnings` without touching it, not even
 *   a lock file, so they work on a read-only folder. The one thing a load removes is debris: the first
 *   load of a store object removes the temp files of writers killed mid-rewrite (see below).
 * - `append` appends lines under a per-session cross-process lock (`<file>.lock`); it never rewrites
 *   the file, so the metadata record's `updated_at` may be stale on disk: `load` and `list` report the
 *   later of it and the last message's timestamp. A torn last line gets a newline first.
 * - Metadata changes, the archive pointer, `rewrite` and `repair` replace the file atomically in a
 *   streaming copy that keeps every line they do not mean to change byte for byte, and move
 *   unreadable lines (bytes as they were) to `<file>.corrupt`. A kill mid-rewrite leaves the old file
 *   and a temp file named for its writer's host and pid (`.{file}.ctxloom-{host}-{pid}-{hex}.tmp`);
 *   every rewrite, and the first load of a store object, removes the temp files whose writer on this
 *   host is gone (and any older than a day), never a live writer's.
 * - Advancing the archive pointer, or rewriting the messages, drops nanobot's `provider_state` record,
 *   as nanobot does after archiving, so a stale `previous_response_id` is never continued.
 * - Events reach subscribers of this store object only (no cross-process delivery).
 */
export class JsonlSessionStore implements SessionStore {
  readonly specificationVersion = 'v1';
  readonly id = 'jsonl';
  /** The sessions folder. */
  readonly dir: string;
  readonly #folders: SessionFolders;
  readonly #queue = new KeyedQueue();
  readonly #listeners = new ListenerSet();
  readonly #now: () => Date;
  readonly #fsync: boolean;
  readonly #lockTimeoutMs: number;
  readonly #reads: SessionFileReads;
  #dirReady: Promise<void> | undefined;
  /** The first load's sweep of temp files dead writers left in `dir` (once per store object). */
  #tempSweep: Promise<void> | undefined;

  constructor(options: JsonlSessionStoreOptions) {
    checkOptions(options, { where: 'new JsonlSessionStore options', known: JSONL_SESSION_STORE_OPTION_KEYS });
    this.dir = path.resolve(options.dir);
    this.#folders = {
      dir: this.dir,
      legacyDirs: (options.legacyDirs ?? []).map((dir) => path.resolve(dir)),
      maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    };
    this.#now = options.now ?? (() => new Date());
    this.#fsync = options.fsync ?? false;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.#reads = new SessionFileReads({
      maxBytes: options.cachedSessionBytes ?? DEFAULT_JSONL_SESSION_STORE.cachedSessionBytes,
      maxLineBytes: this.#folders.maxLineBytes,
    });
  }

  /**
   * The sessions of an agent workspace: `<workspace>/sessions` (nanobot keeps them under its config
   * folder; `resolveNanobotSessionsDir` finds that folder and its legacy ones).
   */
  static forWorkspace(
    workspace: string,
    options: Omit<JsonlSessionStoreOptions, 'dir'> = {},
  ): JsonlSessionStore {
    return new JsonlSessionStore({ ...options, dir: path.join(workspace, 'sessions') });
  }

  /** The file a session is written to (its current name in `dir`; it may still be read from a legacy file). */
  filePath(sessionKey: string): string {
    return path.join(this.dir, sessionFileName(sessionKey));
  }

  /** The file a session is read from now, or `undefined` when none holds it. Reads only. */
  async locate(sessionKey: string): Promise<string | undefined> {
    checkSessionKey(sessionKey, { backend: 'jsonl', operation: 'locate' });
    return locateSessionFile(sessionKey, this.#folders);
  }

  async append(
    sessionKey: string,
    messages: readonly Message[],
    options: StoreCallOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'jsonl', operation: 'append' });
    if (messages.length === 0) return;
    const time = this.#now().toISOString();
    const stamped = messages.map((message) => stampMessage(message, time));
    await this.#locked({ sessionKey, operation: 'append' }, async (file) => {
      if (!(await fileExists(file))) {
        const header = {
          key: sessionKey,
          createdAt: time,
          updatedAt: time,
          metadata: {},
          lastConsolidated: 0,
        };
        await replaceFileAtomically(file, async (sink) => {
          await sink.write(`${formatHeaderLine(header)}\n`);
          for (const message of stamped) await sink.write(`${formatMessageLine(message)}\n`);
        });
        return;
      }
      await this.#reads.beforeAppend(file);
      const prefix = (await endsWithNewline(file)) ? '' : '\n';
      await appendFile(file, `${prefix}${stamped.map(formatMessageLine).join('\n')}\n`);
      if (this.#fsync) await syncFile(file);
      await this.#reads.afterAppend(file);
    });
    for (const message of stamped) this.#listeners.emit({ type: 'message-appended', sessionKey, message });
  }

  async load(sessionKey: string, options: SessionLoadOptions = {}): Promise<SessionRecord> {
    throwIfAborted(options.signal);
    const where = { backend: 'jsonl', operation: 'load' };
    checkSessionKey(sessionKey, where);
    const lastMessages = lastMessagesOf(options.lastMessages, where);
    this.#tempSweep ??= removeStaleTempFiles(this.dir, { now: () => this.#now().getTime() }).then(
      () => undefined,
    );
    await this.#tempSweep;
    return this.#queue.run(sessionKey, () =>
      this.#guard('load', async () => {
        // A second look when the file vanished between finding and opening it (another process moved
        // a legacy file to its current name).
        for (let attempt = 1; ; attempt += 1) {
          const file = await locateSessionFile(sessionKey, this.#folders);
          if (file === undefined) return emptySessionRecord(sessionKey);
          const {
            file: _file,
            unreadableLines: _lines,
            ...record
          } = await this.#reads.read(file, { sessionKey, lastMessages });
          if (record.exists || record.warnings.length > 0 || attempt === 2) return record;
        }
      }),
    );
  }

  async setMetadata(sessionKey: string, patch: Metadata, options: SessionUpdateOptions = {}): Promise<void> {
    const { preserveUpdatedAt = false, ...call } = options;
    await this.#rewrite(sessionKey, {
      ...call,
      decide: (before) => ({
        header: this.#header(before, {
          key: sessionKey,
          metadata: mergeMetadata(before.header?.metadata ?? {}, patch),
          preserveUpdatedAt,
        }),
        providerState: 'keep',
      }),
    });
  }

  async setLastConsolidated(
    sessionKey: string,
    value: number,
    options: SessionUpdateOptions = {},
  ): Promise<void> {
    const { preserveUpdatedAt = false, ...call } = options;
    await this.#rewrite(sessionKey, {
      ...call,
      decide: (before) => {
        const lastConsolidated = clampLastConsolidated(value, before.messageCount);
        const advanced = lastConsolidated > pointerOf(before);
        return {
          header: this.#header(before, { key: sessionKey, lastConsolidated, preserveUpdatedAt }),
          providerState: advanced ? 'drop' : 'keep',
        };
      },
    });
  }

  async rewrite(sessionKey: string, rewrite: SessionRewrite, options: StoreCallOptions = {}): Promise<void> {
    const times = rewriteTimes(rewrite, this.#now().toISOString());
    const messages = rewrite.messages.map((message) => stampMessage(message, times.updatedAt));
    await this.#rewrite(sessionKey, {
      ...options,
      messages,
      decide: (before, after) => {
        checkRewriteCount(rewrite, { backend: 'jsonl', actual: before.messageCount });
        const lastConsolidated = clampLastConsolidated(
          rewrite.lastConsolidated ?? pointerOf(before),
          after.messageCount,
        );
        const header = this.#header(before, { key: sessionKey, lastConsolidated, preserveUpdatedAt: false });
        return {
          header: {
            ...header,
            createdAt: times.createdAt ?? header.createdAt,
            updatedAt: times.updatedAt,
          },
          providerState: 'drop',
        };
      },
    });
  }

  /**
   * Moves a session's unreadable lines (torn, corrupt, too long) to `<file>.corrupt` with their
   * original bytes, leaving every other line as it is; `ctxloom session repair KEY` runs it. Reads
   * never repair; every other rewrite (metadata, archive pointer, `rewrite`) repairs too.
   */
  async repair(sessionKey: string, options: StoreCallOptions = {}): Promise<SessionRepair> {
    const result = await this.#rewrite(sessionKey, {
      ...options,
      decide: () => ({ header: 'keep', providerState: 'keep' }),
    });
    return { movedLines: result.moved, corruptFile: `${this.filePath(sessionKey)}.corrupt` };
  }

  async delete(sessionKey: string, options: StoreCallOptions = {}): Promise<boolean> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'jsonl', operation: 'delete' });
    return this.#locked({ sessionKey, operation: 'delete' }, async () => {
      let deleted = false;
      for (
        let file = await this.locate(sessionKey);
        file !== undefined;
        file = await this.locate(sessionKey)
      ) {
        this.#reads.forget(file);
        await unlink(file);
        deleted = true;
      }
      return deleted;
    });
  }

  async list(options: StoreCallOptions = {}): Promise<readonly JsonlSessionSummary[]> {
    throwIfAborted(options.signal);
    return this.#guard('list', () => listSessionFiles(this.#folders));
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

  async #rewrite(
    sessionKey: string,
    rewrite: StoreCallOptions & SessionFileRewrite,
  ): Promise<{ readonly moved: number }> {
    throwIfAborted(rewrite.signal);
    checkSessionKey(sessionKey, { backend: 'jsonl', operation: 'rewrite' });
    return this.#locked({ sessionKey, operation: 'rewrite' }, async (file) => {
      await removeStaleTempFiles(this.dir, { now: () => this.#now().getTime() });
      this.#reads.forget(file);
      const result = await rewriteSessionFile(file, {
        rewrite,
        corruptFile: `${file}.corrupt`,
        maxLineBytes: this.#folders.maxLineBytes,
      });
      return { moved: result.moved.length };
    });
  }

  /**
   * The new metadata record: `change` over the current one, `updated_at` now, or with
   * `preserveUpdatedAt` the session's current `updatedAt` (what `load` reports: the later of the
   * record's `updated_at` and the last message's timestamp, so the file says it for nanobot too).
   */
  #header(
    before: SessionFileScan,
    change: Pick<HeaderFields, 'key'> &
      Partial<Pick<HeaderFields, 'metadata' | 'lastConsolidated'>> & { readonly preserveUpdatedAt: boolean },
  ): HeaderFields {
    const time = this.#now().toISOString();
    const current = latestTime(before.header?.updatedAt, before.lastTimestamp);
    return {
      key: change.key,
      createdAt: before.header?.createdAt ?? time,
      updatedAt: change.preserveUpdatedAt ? (current ?? time) : time,
      metadata: change.metadata ?? before.header?.metadata ?? {},
      lastConsolidated: change.lastConsolidated ?? pointerOf(before),
    };
  }

  /** Runs a write under the session's in-process queue and file lock, after moving a legacy file into place. */
  #locked<T>(
    { sessionKey, operation }: { readonly sessionKey: string; readonly operation: string },
    task: (file: string) => Promise<T>,
  ): Promise<T> {
    const file = this.filePath(sessionKey);
    return this.#queue.run(sessionKey, () =>
      this.#guard(operation, async () => {
        this.#dirReady ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined);
        await this.#dirReady;
        return withFileLock({ path: `${file}.lock`, timeoutMs: this.#lockTimeoutMs }, async () => {
          await adopt(await locateSessionFile(sessionKey, this.#folders), file);
          return task(file);
        });
      }),
    );
  }

  async #guard<T>(operation: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (ContextError.isInstance(error)) throw error;
      throw new SessionStoreError({
        code: 'STORE_UNAVAILABLE',
        backend: 'jsonl',
        operation,
        message: `JSONL session store ${operation} failed in ${this.dir}: ${error instanceof Error ? error.message : String(error)}.`,
        cause: error,
      });
    }
  }
}

/** The archive pointer a file holds (nanobot's validation: not an integer in `0..count` reads as 0). */
function pointerOf(scan: SessionFileScan): number {
  return validLastConsolidated(scan.header?.lastConsolidated, scan.messageCount);
}

/** Moves a session found under a legacy name or folder to its current name, as nanobot migrates it. */
async function adopt(found: string | undefined, file: string): Promise<void> {
  if (found === undefined || found === file) return;
  try {
    await rename(found, file);
  } catch (error) {
    if (!hasErrorCode(error, 'EXDEV')) throw error;
    await copyFile(found, file);
    await unlink(found);
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
