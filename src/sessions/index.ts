/**
 * @module ctxloom/sessions
 * The SessionStore contract and its memory, JSONL (nanobot format), SQLite and PostgreSQL backends;
 * MessageStore (coercers, retention, events); replay rules (getHistory) and turn persistence.
 */
export { atomicWriteFile } from './atomic-write.js';
export { type FileLockOptions, withFileLock } from './file-lock.js';
export { MemorySessionStore, type MemorySessionStoreOptions } from './memory-session-store.js';
export { mergeMetadata } from './merge-metadata.js';
export type {
  MessageEvent,
  MessageEventListener,
  SessionRecord,
  SessionRewrite,
  SessionStore,
  SessionSummary,
  StoreCallOptions,
} from './session-store.js';
