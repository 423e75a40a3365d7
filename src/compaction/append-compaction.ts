import { applyCompactions } from '../core/apply-compactions.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import {
  COMPACTIONS_METADATA_KEY,
  sessionCompactions,
  storedCompactions,
} from '../sessions/session-compactions.js';
import type { SessionStore } from '../sessions/session-store.js';

/** Options for {@link appendCompaction}. */
export type AppendCompactionOptions = {
  readonly sessionKey: string;
  readonly record: CompactionRecord;
  readonly signal?: AbortSignal;
};

const APPEND_COMPACTION_OPTION_KEYS = {
  sessionKey: true,
  record: true,
  signal: true,
} as const satisfies OptionKeys<AppendCompactionOptions>;

/**
 * Appends a compaction record to a session, under the store's session lock (across processes and
 * servers for the built-in stores): it loads the session, checks the record against its messages and
 * the records already stored, and writes it only when it fits. So two agents that compacted the same
 * span never both store a record for it: the second gets `STORE_CONFLICT` and nothing changes. Raw
 * messages are never touched.
 * @throws ContextError `STORE_CONFLICT` when the record no longer fits the session (its run changed or
 * was compacted meanwhile), naming the violation; `INVALID_INPUT` when the session does not exist.
 */
export async function appendCompaction(store: SessionStore, options: AppendCompactionOptions): Promise<void> {
  checkOptions(options, { where: 'appendCompaction options', known: APPEND_COMPACTION_OPTION_KEYS });
  const write = async (): Promise<void> => {
    const session = await store.load(
      options.sessionKey,
      options.signal === undefined ? {} : { signal: options.signal },
    );
    if (!session.exists)
      throw new ContextError({
        code: 'INVALID_INPUT',
        message: `Session ${JSON.stringify(options.sessionKey)} does not exist; append its messages before a compaction record.`,
      });
    const records = [...sessionCompactions(session), options.record];
    const { violations } = applyCompactions(session.messages, records);
    const own = violations.filter((violation) => violation.recordId === options.record.id);
    const first = own[0];
    if (first !== undefined)
      throw new ContextError({
        code: 'STORE_CONFLICT',
        message: `Compaction record ${options.record.id} does not fit session ${JSON.stringify(options.sessionKey)} (${first.type}: ${first.message}); it was not stored. Compact again from the session as it is now.`,
        details: { violations: own },
      });
    await store.setMetadata(
      options.sessionKey,
      { [COMPACTIONS_METADATA_KEY]: [...storedCompactions(session), options.record] },
      { preserveUpdatedAt: true, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
  };
  if (store.withSessionLock === undefined) return write();
  return store.withSessionLock(options.sessionKey, write);
}
