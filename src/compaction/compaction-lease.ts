import { isRecord } from '../core/is-record.js';
import type { SessionStore } from '../sessions/session-store.js';

/**
 * The session metadata key of the compaction lease: `{ owner, expiresAt }` while a compactor (in any
 * process or server sharing the store) is summarising the session, `null` otherwise.
 */
export const COMPACTION_LEASE_KEY = 'ctxloom_compaction_lease';

/** A lease on a session's compaction. */
export type CompactionLease = { readonly owner: string; readonly expiresAt: string };

/**
 * Takes the session's compaction lease for `owner` under the store's session lock (across processes
 * and servers for the built-in stores), unless another owner holds one that has not expired.
 * Returns `undefined` when taken (or when the session is not stored yet: there is nothing to share),
 * else the lease held by the other owner.
 */
export async function acquireCompactionLease(
  store: SessionStore,
  options: {
    readonly sessionKey: string;
    readonly owner: string;
    readonly now: Date;
    readonly leaseMs: number;
  },
): Promise<CompactionLease | undefined> {
  const take = async (): Promise<CompactionLease | undefined> => {
    const session = await store.load(options.sessionKey);
    if (!session.exists) return undefined;
    const held = leaseOf(session.metadata[COMPACTION_LEASE_KEY]);
    if (
      held !== undefined &&
      held.owner !== options.owner &&
      Date.parse(held.expiresAt) > options.now.getTime()
    )
      return held;
    const lease: CompactionLease = {
      owner: options.owner,
      expiresAt: new Date(options.now.getTime() + options.leaseMs).toISOString(),
    };
    await store.setMetadata(
      options.sessionKey,
      { [COMPACTION_LEASE_KEY]: lease },
      { preserveUpdatedAt: true },
    );
    return undefined;
  };
  return store.withSessionLock === undefined ? take() : store.withSessionLock(options.sessionKey, take);
}

/** Gives the lease back when `owner` still holds it. */
export async function releaseCompactionLease(
  store: SessionStore,
  options: { readonly sessionKey: string; readonly owner: string },
): Promise<void> {
  const release = async (): Promise<void> => {
    const session = await store.load(options.sessionKey);
    if (!session.exists || leaseOf(session.metadata[COMPACTION_LEASE_KEY])?.owner !== options.owner) return;
    await store.setMetadata(
      options.sessionKey,
      { [COMPACTION_LEASE_KEY]: null },
      { preserveUpdatedAt: true },
    );
  };
  return store.withSessionLock === undefined ? release() : store.withSessionLock(options.sessionKey, release);
}

function leaseOf(value: unknown): CompactionLease | undefined {
  return isRecord(value) && typeof value['owner'] === 'string' && typeof value['expiresAt'] === 'string'
    ? { owner: value['owner'], expiresAt: value['expiresAt'] }
    : undefined;
}
