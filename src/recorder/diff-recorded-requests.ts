import type { RecordedMessageHash, RequestRecord } from './request-record.js';

/** What changed between two recorded requests, by message id and content hash. */
export type RecordedRequestDiff = {
  /** Messages of the first request that kept their place and content, counted from the start (the cacheable prefix). */
  readonly stablePrefix: number;
  /** Ids of messages that are new in the second request. */
  readonly added: readonly string[];
  /** Ids of messages of the first request that the second no longer has. */
  readonly removed: readonly string[];
  /** Ids of messages present in both whose content hash changed. */
  readonly changed: readonly string[];
  /** Total tokens of the second request minus those of the first. */
  readonly tokenDelta: number;
};

/**
 * Compares a request with the one before it (the previous step or turn): which messages were added,
 * removed or rewritten, and how many leading messages stayed identical, which is what a provider's
 * prompt cache can reuse. Pure.
 */
export function diffRecordedRequests(
  previous: Pick<RequestRecord, 'messageHashes' | 'totalTokens'>,
  next: Pick<RequestRecord, 'messageHashes' | 'totalTokens'>,
): RecordedRequestDiff {
  const before = new Map(previous.messageHashes.map((entry) => [entry.id, entry]));
  const after = new Set(next.messageHashes.map((entry) => entry.id));
  let stablePrefix = 0;
  while (stablePrefix < Math.min(previous.messageHashes.length, next.messageHashes.length)) {
    if (!isSame(previous.messageHashes[stablePrefix], next.messageHashes[stablePrefix])) break;
    stablePrefix += 1;
  }
  return {
    stablePrefix,
    added: next.messageHashes.filter((entry) => !before.has(entry.id)).map((entry) => entry.id),
    removed: previous.messageHashes.filter((entry) => !after.has(entry.id)).map((entry) => entry.id),
    changed: next.messageHashes
      .filter((entry) => {
        const old = before.get(entry.id);
        return old !== undefined && old.hash !== entry.hash;
      })
      .map((entry) => entry.id),
    tokenDelta: next.totalTokens - previous.totalTokens,
  };
}

function isSame(left: RecordedMessageHash | undefined, right: RecordedMessageHash | undefined): boolean {
  return left !== undefined && right !== undefined && left.hash === right.hash && left.role === right.role;
}
