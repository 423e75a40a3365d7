import { ContextError, throwIfAborted } from '../core/errors.js';
import { generateMessageId, type IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { MemorySessionStore } from './memory-session-store.js';
import type { MessageCoercer } from './message-coercer.js';
import type { RetentionPolicy } from './retention-policy.js';
import type { MessageEventListener, SessionRecord, SessionStore } from './session-store.js';
import { StrictMessageCoercer } from './strict-message-coercer.js';

/** Options for {@link MessageStore}. */
export type MessageStoreOptions = {
  /** Where the messages live. @default a new MemorySessionStore */
  readonly store?: SessionStore;
  /** The session this store reads and writes. */
  readonly sessionKey: string;
  /** Turns untrusted input into messages. @default StrictMessageCoercer */
  readonly coercer?: MessageCoercer;
  /** Applied after every append (e.g. `new MaxCountRetention(100)`). @default keep everything */
  readonly retention?: RetentionPolicy;
  /** Makes ids for messages that come without one. @default random 32-hex ids */
  readonly generateId?: IdGenerator;
};

/** Options for {@link MessageStore.append}. */
export type MessageStoreAppendOptions = {
  /** Aborts before the write (throws `ABORTED`). */
  readonly signal?: AbortSignal;
};

const MAX_RETENTION_ATTEMPTS = 5;

/**
 * A message store for one session, on any {@link SessionStore}. `append(input)` coerces
 * every value first (nothing is written when one is bad), appends them as one batch, then applies
 * the retention policy; appends through one `MessageStore` are serialised in call order. Each
 * appended message reaches `subscribe()` listeners as one `MessageEvent` (from other processes too
 * when the backend delivers them, e.g. PostgreSQL).
 *
 * Retention rewrites the session only when it drops something, with an optimistic check
 * (`ifMessageCount`) so a concurrent append from another writer is never lost: on a conflict it
 * reloads and tries again. The archive pointer moves back by the number of dropped messages.
 * @example
 * const store = new MessageStore({ sessionKey: 'cli:direct', retention: new MaxCountRetention(100) });
 * await store.append({ role: 'user', content: 'hi' });
 */
export class MessageStore {
  /** The backing store. */
  readonly store: SessionStore;
  /** The session key. */
  readonly sessionKey: string;
  readonly #coercer: MessageCoercer;
  readonly #retention: RetentionPolicy | undefined;
  readonly #generateId: IdGenerator;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: MessageStoreOptions) {
    this.store = options.store ?? new MemorySessionStore();
    this.sessionKey = options.sessionKey;
    this.#coercer = options.coercer ?? new StrictMessageCoercer();
    this.#retention = options.retention;
    this.#generateId = options.generateId ?? generateMessageId;
  }

  /**
   * Coerces and appends one value, or every value of an array (a batch); resolves to the messages as
   * coerced. @throws ContextError `INVALID_INPUT` (nothing written) when a value cannot be coerced.
   */
  async append(input: unknown, options: MessageStoreAppendOptions = {}): Promise<readonly Message[]> {
    const values: readonly unknown[] = Array.isArray(input) ? input : [input];
    const messages = values.map((value, index) =>
      this.#coercer.coerce(value, {
        path: Array.isArray(input) ? `input[${index}]` : 'input',
        generateId: this.#generateId,
      }),
    );
    const run = this.#tail.then(async () => {
      throwIfAborted(options.signal);
      await this.store.append(this.sessionKey, messages, options);
      if (this.#retention !== undefined) await this.#applyRetention(this.#retention);
      return messages;
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** The stored messages, oldest first. */
  async messages(): Promise<readonly Message[]> {
    return (await this.load()).messages;
  }

  /** The whole stored session record. */
  load(): Promise<SessionRecord> {
    return this.store.load(this.sessionKey);
  }

  /** Receives one event per message appended to this session. Returns the unsubscribe function. */
  subscribe(listener: MessageEventListener): () => void {
    return this.store.subscribe((event) => {
      if (event.sessionKey === this.sessionKey) listener(event);
    });
  }

  async #applyRetention(retention: RetentionPolicy): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.store.load(this.sessionKey);
      const kept = retention.apply(record.messages);
      if (kept === record.messages || kept.length === record.messages.length) return;
      const dropped = record.messages.length - kept.length;
      try {
        await this.store.rewrite(this.sessionKey, {
          messages: kept,
          lastConsolidated: Math.max(0, record.lastConsolidated - dropped),
          ifMessageCount: record.messages.length,
        });
        return;
      } catch (error) {
        if (
          !ContextError.isInstance(error) ||
          error.code !== 'STORE_CONFLICT' ||
          attempt >= MAX_RETENTION_ATTEMPTS
        ) {
          throw error;
        }
      }
    }
  }
}
