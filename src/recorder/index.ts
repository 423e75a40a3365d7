/**
 * @module ctxloom/recorder
 * Records every request ctxloom builds (sections, tokens, decisions, a content hash per message, the
 * messages) and the provider's usage for it, as plain JSON lines in a bounded store: JSONL files
 * beside the sessions, SQLite or PostgreSQL. The record format is documented in `docs/recorder.md`.
 */
export type {
  ObservedRequest,
  ObservedRequestSource,
  ObservedUsage,
  RequestObserver,
} from '../pipeline/request-observer.js';
export { combineRequestObservers } from './combine-request-observers.js';
export { diffRecordedRequests, type RecordedRequestDiff } from './diff-recorded-requests.js';
export {
  DEFAULT_JSONL_REQUEST_STORE,
  JsonlRequestStore,
  type JsonlRequestStoreOptions,
} from './jsonl-request-store.js';
export { messageContentHash } from './message-content-hash.js';
export { parseRecord, parseRecordLines } from './parse-record-lines.js';
export {
  DEFAULT_POSTGRES_REQUEST_STORE,
  PostgresRequestStore,
  type PostgresRequestStoreOptions,
} from './postgres-request-store.js';
export { mergeRecordedRequests, readRecordedRequests } from './read-recorded-requests.js';
export {
  REQUEST_RECORD_VERSION,
  type RecordedCounts,
  type RecordedMessageHash,
  type RecordedRequest,
  type RecordedStage,
  type RecordedUsage,
  type RecorderRecord,
  type RequestRecord,
  type UsageRecord,
} from './request-record.js';
export type { ReadRequestRecordsOptions, RequestRecordStore } from './request-record-store.js';
export {
  DEFAULT_REQUEST_RECORDER,
  RequestRecorder,
  type RequestRecorderOptions,
} from './request-recorder.js';
export {
  DEFAULT_SQLITE_REQUEST_STORE,
  SqliteRequestStore,
  type SqliteRequestStoreOptions,
} from './sqlite-request-store.js';
export { type ToRequestRecordOptions, toRequestRecord } from './to-request-record.js';
