import type { RecordedRequest, RecordedUsage, RecorderRecord } from './request-record.js';
import type { RequestRecordStore } from './request-record-store.js';

/**
 * The requests of a list of log lines, oldest first, each with the usage reported for it (when a
 * request got several reports, the last one wins). Usage lines whose request is no longer kept are
 * left out. Pure.
 */
export function mergeRecordedRequests(records: readonly RecorderRecord[]): readonly RecordedRequest[] {
  const usage = new Map<string, RecordedUsage>();
  for (const record of records) {
    if (record.type !== 'usage') continue;
    const { type: _type, version: _version, requestId, sessionKey: _sessionKey, ...fields } = record;
    usage.set(requestId, fields);
  }
  return records.flatMap((record) => {
    if (record.type !== 'request') return [];
    const found = usage.get(record.id);
    return [found === undefined ? record : { ...record, usage: found }];
  });
}

/** Reads a session's log from a store and merges each request with its usage ({@link mergeRecordedRequests}). */
export async function readRecordedRequests(
  store: RequestRecordStore,
  options: { readonly sessionKey: string; readonly signal?: AbortSignal },
): Promise<readonly RecordedRequest[]> {
  const { sessionKey, ...rest } = options;
  return mergeRecordedRequests(await store.read(sessionKey, rest));
}
