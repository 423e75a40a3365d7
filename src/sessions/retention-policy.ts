import type { Message } from '../core/message.js';

/** Decides which stored messages to keep after a write (store-level retention). */
export interface RetentionPolicy {
  /** The contract version. */
  readonly specificationVersion: 'v1';
  /** A short id, e.g. `max-count:100`. */
  readonly id: string;
  /** The messages to keep: a suffix of `messages`; returns the same array when nothing is dropped. */
  apply(messages: readonly Message[]): readonly Message[];
}
