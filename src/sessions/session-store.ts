import type { Message, Metadata } from '../core/message.js';

/**
 * A stored session as {@link SessionStore.load} returns it. A session that was never written loads
 * as an empty record with `exists: false`.
 */
export type SessionRecord = {
  /** The session key (untrusted; stores never use it as a path). */
  readonly key: string;
  /** Every stored message, oldest first. */
  readonly messages: readonly Message[];
  /** Session metadata (nanobot's `metadata` dict: `_last_summary`, `title`, …). */
  readonly metadata: Metadata;
  /** How many leading messages are already archived into history (archive progress, not a replay boundary). */
  readonly lastConsolidated: number;
  /** ISO time the session was created, when it exists. */
  readonly createdAt?: string;
  /** ISO time of the last change (append, metadata or rewrite), when it exists. */
  readonly updatedAt?: string;
  /** False when nothing was ever stored under this key. */
  readonly exists: boolean;
  /** Problems found while loading (corrupt lines skipped and kept aside); empty when all is well. */
  readonly warnings: readonly string[];
};

/** One line of {@link SessionStore.list}. */
export type SessionSummary = {
  readonly key: string;
  /**
   * How many messages are stored, when the backend knows without reading them: the SQL and memory
   * stores do; `JsonlSessionStore` leaves it out, since its `list()` reads only the first and last
   * line of each file (load the session to count).
   */
  readonly messageCount?: number;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  /** Problems found while listing this session (an unreadable file or metadata record), when any. */
  readonly warnings?: readonly string[];
};

/** Broadcast once per appended message to {@link SessionStore.subscribe} listeners. */
export type MessageEvent = {
  readonly type: 'message-appended';
  /** The session the message was appended to. */
  readonly sessionKey: string;
  /** The message as stored. */
  readonly message: Message;
};

/** Receives {@link MessageEvent}s. */
export type MessageEventListener = (event: MessageEvent) => void;

/** What {@link SessionStore.rewrite} replaces. */
export type SessionRewrite = {
  /** The new full message list (compaction, retention). */
  readonly messages: readonly Message[];
  /** The new archive pointer; clamped to the message count. @default unchanged, clamped */
  readonly lastConsolidated?: number;
  /**
   * Optimistic concurrency: rewrite only if the session still holds exactly this many messages, else
   * throw `STORE_CONFLICT` and change nothing (another writer appended since you loaded).
   * @default no check
   */
  readonly ifMessageCount?: number;
};

/** Options every store operation accepts. */
export type StoreCallOptions = {
  /** Aborts the operation (throws `ABORTED`). */
  readonly signal?: AbortSignal;
};

/**
 * Where sessions live. Implementations: `MemorySessionStore`, `JsonlSessionStore` (nanobot's file
 * format), `SqliteSessionStore`, `PostgresSessionStore`; check a new one with
 * `describeSessionStoreContract` from `ctxloom/testing`.
 *
 * Guarantees every implementation keeps:
 * - `append` adds messages at the end, in order, never rewriting earlier ones; appends to one session
 *   from several callers (and, for persistent stores, several processes) are never lost or interleaved
 *   within one call;
 * - a failed call changes nothing it reports as done; no method mutates its arguments;
 * - session keys are untrusted data: any string is a valid key and can never reach another session
 *   or escape the store's folder.
 */
export interface SessionStore {
  /** The contract version. */
  readonly specificationVersion: 'v1';
  /** The backend name: `memory`, `jsonl`, `sqlite`, `postgres`, … */
  readonly id: string;
  /** Appends messages to a session (creating it), and emits one event per message. */
  append(sessionKey: string, messages: readonly Message[], options?: StoreCallOptions): Promise<void>;
  /** Loads a session; a missing session is an empty record with `exists: false`. */
  load(sessionKey: string, options?: StoreCallOptions): Promise<SessionRecord>;
  /** Shallow-merges `patch` into the metadata; a key set to `undefined` is removed. Creates the session. */
  setMetadata(sessionKey: string, patch: Metadata, options?: StoreCallOptions): Promise<void>;
  /** Sets the archive pointer (clamped to `0..messageCount`). */
  setLastConsolidated(
    sessionKey: string,
    lastConsolidated: number,
    options?: StoreCallOptions,
  ): Promise<void>;
  /** Replaces a session's messages atomically (compaction, retention); see `ifMessageCount`. */
  rewrite(sessionKey: string, rewrite: SessionRewrite, options?: StoreCallOptions): Promise<void>;
  /** Deletes a session; resolves to false when it did not exist. */
  delete(sessionKey: string, options?: StoreCallOptions): Promise<boolean>;
  /** Lists the stored sessions, sorted by key. */
  list(options?: StoreCallOptions): Promise<readonly SessionSummary[]>;
  /**
   * Optional capability: runs `task` while holding an exclusive lock on the session that other
   * processes (and servers, for shared backends) respect. Long read-modify-write work such as memory
   * consolidation uses it so two workers never archive the same messages twice. Appends are not
   * blocked by it. Stores without it are only serialised within one process.
   */
  withSessionLock?<T>(sessionKey: string, task: () => Promise<T>): Promise<T>;
  /** Subscribes to appends in this store (other processes too where the backend supports it). */
  subscribe(listener: MessageEventListener): () => void;
  /** Releases connections, handles and listeners. */
  close(): Promise<void>;
}

/** The record of a session that was never written (`exists: false`), with any load warnings. */
export function emptySessionRecord(sessionKey: string, warnings: readonly string[] = []): SessionRecord {
  return { key: sessionKey, messages: [], metadata: {}, lastConsolidated: 0, exists: false, warnings };
}
