import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { throwIfAborted } from '../core/errors.js';
import type { Message, Metadata } from '../core/message.js';
import { checkSessionKey } from './check-session-key.js';
import { KeyedQueue } from './keyed-queue.js';
import { lastMessagesOf, newestOf } from './last-messages.js';
import { ListenerSet } from './listener-set.js';
import { compareKeys, mergeMetadata } from './merge-metadata.js';
import { checkRewriteCount } from './rewrite-conflict.js';
import { rewriteTimes } from './rewrite-times.js';
import type {
  MessageEventListener,
  SessionLoadOptions,
  SessionRecord,
  SessionRewrite,
  SessionStore,
  SessionSummary,
  SessionUpdateOptions,
  StoreCallOptions,
} from './session-store.js';
import { emptySessionRecord } from './session-store.js';
import { clampLastConsolidated, stampMessage } from './stamp-message.js';

/** Options for {@link MemorySessionStore}. */
export type MemorySessionStoreOptions = {
  /** The clock for timestamps. @default the system clock */
  readonly now?: () => Date;
};

/** The keys of {@link MemorySessionStoreOptions}, for `checkOptions`. @internal */
export const MEMORY_SESSION_STORE_OPTION_KEYS = {
  now: true,
} as const satisfies OptionKeys<MemorySessionStoreOptions>;

type Entry = {
  readonly messages: readonly Message[];
  readonly metadata: Metadata;
  readonly lastConsolidated: number;
  readonly createdAt: string;
  readonly updatedAt: string;
};

/** A {@link SessionStore} in memory: for tests, ephemeral agents and the default of `MessageStore`. */
export class MemorySessionStore implements SessionStore {
  readonly specificationVersion = 'v1';
  readonly id = 'memory';
  readonly #sessions = new Map<string, Entry>();
  readonly #listeners = new ListenerSet();
  readonly #locks = new KeyedQueue();
  readonly #now: () => Date;

  constructor(options: MemorySessionStoreOptions = {}) {
    checkOptions(options, {
      where: 'new MemorySessionStore options',
      known: MEMORY_SESSION_STORE_OPTION_KEYS,
    });
    this.#now = options.now ?? (() => new Date());
  }

  async append(
    sessionKey: string,
    messages: readonly Message[],
    options: StoreCallOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'memory', operation: 'append' });
    if (messages.length === 0) return;
    const time = this.#now().toISOString();
    const stamped = messages.map((message) => stampMessage(message, time));
    const entry = this.#entry(sessionKey, time);
    this.#sessions.set(sessionKey, { ...entry, messages: [...entry.messages, ...stamped], updatedAt: time });
    for (const message of stamped) this.#listeners.emit({ type: 'message-appended', sessionKey, message });
  }

  async load(sessionKey: string, options: SessionLoadOptions = {}): Promise<SessionRecord> {
    throwIfAborted(options.signal);
    const where = { backend: 'memory', operation: 'load' };
    checkSessionKey(sessionKey, where);
    const last = lastMessagesOf(options.lastMessages, where);
    const entry = this.#sessions.get(sessionKey);
    if (entry === undefined) {
      return emptySessionRecord(sessionKey);
    }
    // An entry's list is replaced, never changed, by later writes: a full load may share it.
    return newestOf({ key: sessionKey, ...entry, exists: true, warnings: [] }, last);
  }

  async setMetadata(sessionKey: string, patch: Metadata, options: SessionUpdateOptions = {}): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'memory', operation: 'setMetadata' });
    this.#update(sessionKey, {
      preserveUpdatedAt: options.preserveUpdatedAt === true,
      change: (entry) => ({ metadata: mergeMetadata(entry.metadata, patch) }),
    });
  }

  async setLastConsolidated(
    sessionKey: string,
    value: number,
    options: SessionUpdateOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'memory', operation: 'setLastConsolidated' });
    this.#update(sessionKey, {
      preserveUpdatedAt: options.preserveUpdatedAt === true,
      change: (entry) => ({ lastConsolidated: clampLastConsolidated(value, entry.messages.length) }),
    });
  }

  async rewrite(sessionKey: string, rewrite: SessionRewrite, options: StoreCallOptions = {}): Promise<void> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'memory', operation: 'rewrite' });
    const { createdAt, updatedAt } = rewriteTimes(rewrite, this.#now().toISOString());
    const entry = this.#entry(sessionKey, updatedAt);
    checkRewriteCount(rewrite, { backend: 'memory', actual: entry.messages.length });
    const messages = rewrite.messages.map((message) => stampMessage(message, updatedAt));
    const lastConsolidated = clampLastConsolidated(
      rewrite.lastConsolidated ?? entry.lastConsolidated,
      messages.length,
    );
    this.#sessions.set(sessionKey, {
      ...entry,
      messages,
      lastConsolidated,
      createdAt: createdAt ?? entry.createdAt,
      updatedAt,
    });
  }

  async delete(sessionKey: string, options: StoreCallOptions = {}): Promise<boolean> {
    throwIfAborted(options.signal);
    checkSessionKey(sessionKey, { backend: 'memory', operation: 'delete' });
    return this.#sessions.delete(sessionKey);
  }

  async list(options: StoreCallOptions = {}): Promise<readonly SessionSummary[]> {
    throwIfAborted(options.signal);
    return [...this.#sessions.entries()]
      .map(([key, entry]) => ({
        key,
        messageCount: entry.messages.length,
        createdAt: entry.createdAt,
        updatedAt: entry.updatedAt,
      }))
      .sort(compareKeys);
  }

  /** Serialises tasks per session (this store lives in one process, so that is exclusive). */
  async withSessionLock<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    checkSessionKey(sessionKey, { backend: 'memory', operation: 'lock' });
    return this.#locks.run(sessionKey, task);
  }

  subscribe(listener: MessageEventListener): () => void {
    return this.#listeners.add(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }

  /** Applies `change` to the session (creating it), setting `updatedAt` to now unless `preserveUpdatedAt`. */
  #update(
    sessionKey: string,
    update: {
      readonly preserveUpdatedAt: boolean;
      readonly change: (entry: Entry) => Partial<Pick<Entry, 'metadata' | 'lastConsolidated'>>;
    },
  ): void {
    const time = this.#now().toISOString();
    const entry = this.#entry(sessionKey, time);
    const updatedAt = update.preserveUpdatedAt ? entry.updatedAt : time;
    this.#sessions.set(sessionKey, { ...entry, ...update.change(entry), updatedAt });
  }

  #entry(sessionKey: string, time: string): Entry {
    return (
      this.#sessions.get(sessionKey) ?? {
        messages: [],
        metadata: {},
        lastConsolidated: 0,
        createdAt: time,
        updatedAt: time,
      }
    );
  }
}
