/**
 * @module ctxloom/sessions
 * The SessionStore contract and its memory, JSONL (nanobot format), SQLite and PostgreSQL backends;
 * MessageStore (coercers, retention, events); replay rules (getHistory) and turn persistence.
 */
export { checkSessionKey } from './check-session-key.js';
export { lineageWarnings } from './compacted-view.js';
export {
  type CompactionDescription,
  type CompactionItem,
  describeCompactions,
} from './describe-compactions.js';
export { DEFAULT_MAX_LINE_BYTES } from './file-lines.js';
export { type FileLockOptions, withFileLock } from './file-lock.js';
export {
  DEFAULT_REPLAY_MAX_MESSAGES,
  type GetHistoryOptions,
  getHistory,
  MIN_COMPACTED_REPLAY_MESSAGES,
  type ReplaySession,
} from './get-history.js';
export {
  DEFAULT_JSONL_SESSION_STORE,
  JsonlSessionStore,
  type JsonlSessionStoreOptions,
  type SessionRepair,
} from './jsonl-session-store.js';
export { LenientMessageCoercer } from './lenient-message-coercer.js';
export type { JsonlSessionSummary } from './list-session-files.js';
export { MaxCountRetention } from './max-count-retention.js';
export { MemorySessionStore, type MemorySessionStoreOptions } from './memory-session-store.js';
export { mergeMetadata } from './merge-metadata.js';
export type { CoerceContext, MessageCoercer } from './message-coercer.js';
export { MessageStore, type MessageStoreAppendOptions, type MessageStoreOptions } from './message-store.js';
export {
  derivedMessageId,
  fromNanobotDict,
  NANOBOT_EXTRA_KEY,
  type NanobotDict,
  toNanobotDict,
} from './nanobot-message.js';
export { PostgresSessionStore, type PostgresSessionStoreOptions } from './postgres-session-store.js';
export { readMessagesFile } from './read-messages-file.js';
export { type ReadSessionFileOptions, readSessionFile, type SessionFileRecord } from './read-session-file.js';
export {
  archivedSummaryOf,
  LAST_SUMMARY_KEY,
  type LoadedReplay,
  type LoadReplayedSessionOptions,
  loadReplayedSession,
  REPLAY_MARGIN_TOKENS,
  type ReplayBudgetOptions,
  type ReplayedHistory,
  type ReplaySessionOptions,
  replayBudget,
  replayMaxMessages,
  replaySession,
} from './replay-session.js';
export {
  type NanobotSessionsDir,
  type ResolveNanobotSessionsDirOptions,
  resolveNanobotSessionsDir,
} from './resolve-nanobot-sessions-dir.js';
export type { RetentionPolicy } from './retention-policy.js';
export { type SaveTurnOptions, type SaveTurnResult, saveTurn } from './save-turn.js';
export { COMPACTIONS_METADATA_KEY, sessionCompactions, storedCompactions } from './session-compactions.js';
export { legacySessionFileName, sessionFileName } from './session-file-name.js';
export { NOTES_METADATA_KEY, sessionNotesOf } from './session-notes-of.js';
export {
  emptySessionRecord,
  type MessageEvent,
  type MessageEventListener,
  type SessionLoadOptions,
  type SessionRecord,
  type SessionRewrite,
  type SessionStore,
  type SessionSummary,
  type SessionUpdateOptions,
  type StoreCallOptions,
} from './session-store.js';
export type { SqliteDriverChoice, SqliteDriverName } from './sqlite-driver.js';
export { SqliteSessionStore, type SqliteSessionStoreOptions } from './sqlite-session-store.js';
export { TIMESTAMP_KEY } from './stamp-message.js';
export { StrictMessageCoercer } from './strict-message-coercer.js';
