import type { Message, Metadata } from '../core/message.js';

/**
 * A stored session as {@link SessionStore.load} returns it. A session that was never written loads
 * as an empty record with `exists: false`.
 */
export type SessionRecord = {
  /** The session key (untrusted; stores never use it as a path). */
  readonly key: string;
  /**
   * The stored messages, oldest first: every one, or the last ones when the load asked for
   * `lastMessages` (then `firstIndex` says where they start).
   */
  readonly messages: readonly Message[];
  /**
   * The position in the session of `messages[0]`: how many older messages the load left out (a load
   * with `lastMessages`). Absent (or 0): `messages` is every stored message. `lastConsolidated`
   * counts from the session's first message either way.
   */
  readonly firstIndex?: number;
  /** Session metadata (nanobot's `metadata` dict: `_last_summary`, `title`, …). */
  readonly metadata: Metadata;
  /** How many leading messages are already archived into history (archive progress, not a replay boundary). */
  readonly lastConsolidated: number;
  /** ISO time the session was created, when it exists. */
  readonly createdAt?: string;
  /**
   * ISO time of the last change (append, metadata or rewrite), when it exists: the session's recency,
   * which idle compaction compares with its TTL. Writes with `preserveUpdatedAt` leave it as it is.
   */
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
  /**
   * The session's creation time to record (ISO 8601), for a copy that keeps its source's times
   * (`ctxloom session import`). @default unchanged (now for a new session)
   */
  readonly createdAt?: string;
  /**
   * The session's last-change time to record (ISO 8601) instead of now, for a copy that keeps its
   * source's recency, so "most recently updated" follows the sessions' activity, not the import
   * order; messages without a timestamp are stamped with it. @default now
   */
  readonly updatedAt?: string;
};

/** Options every store operation accepts. */
export type StoreCallOptions = {
  /** Aborts the operation (throws `ABORTED`). */
  readonly signal?: AbortSignal;
};

/** Options of {@link SessionStore.load}. */
export type SessionLoadOptions = StoreCallOptions & {
  /**
   * Load only the newest this many messages (all of them when the session has fewer); the record's
   * `firstIndex` says how many older ones were left out. A long-lived agent that replays its session
   * every turn reads only what the replay can use (see `loadReplayedSession`), so a turn does not cost
   * the whole history. A non-negative integer, or `Infinity`. @default every message
   */
  readonly lastMessages?: number;
};

/** Options of {@link SessionStore.setMetadata} and {@link SessionStore.setLastConsolidated}. */
export type SessionUpdateOptions = StoreCallOptions & {
  /**
   * Leave the session's `updatedAt` as it is, for bookkeeping that is not activity: archiving
   * (`MemoryConsolidator` records its archive pointer and `_last_summary` this way, so an idle session
   * stays idle, as in nanobot's idle compaction). The stored value is kept, not restored: an append
   * that landed meanwhile still counts. A session that does not exist yet is created with `updatedAt`
   * = now.
   * @default false (the write is activity: `updatedAt` becomes now)
   */
  readonly preserveUpdatedAt?: boolean;
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
  /**
   * Loads a session (or its newest `lastMessages`); a missing session is an empty record with
   * `exists: false`.
   */
  load(sessionKey: string, options?: SessionLoadOptions): Promise<SessionRecord>;
  /**
   * Shallow-merges `patch` into the metadata; a key set to `undefined` is removed. Creates the session.
   * Sets `updatedAt` to now unless `preserveUpdatedAt`.
   */
  setMetadata(sessionKey: string, patch: Metadata, options?: SessionUpdateOptions): Promise<void>;
  /** Sets the archive pointer (clamped to `0..messageCount`); `updatedAt` as in {@link SessionStore.setMetadata}. */
  setLastConsolidated(
    sessionKey: string,
    lastConsolidated: number,
    options?: SessionUpdateOptions,
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
