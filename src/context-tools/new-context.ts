import type { PinnedContextOptions } from '../compaction/pinned-context.js';
import { planCompaction } from '../compaction/plan-compaction.js';
import { runLineage } from '../compaction/run-lineage.js';
import { applyCompactions } from '../core/apply-compactions.js';
import { COMPACTION_DEPTH_KEY, COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { SessionNotes } from '../core/session-notes.js';
import { sessionView } from '../core/session-view.js';
import {
  COMPACTIONS_METADATA_KEY,
  sessionCompactions,
  storedCompactions,
} from '../sessions/session-compactions.js';
import { NOTES_METADATA_KEY } from '../sessions/session-notes-of.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** The metadata key of a context-reset summary holding the notes as they were at the reset. */
export const RESET_NOTES_KEY = 'notes';

/** What {@link writeNewContext} did. */
export type NewContextOutcome = {
  /** The boundary record, when there was anything to take out of view. */
  readonly record?: CompactionRecord;
  readonly notes: SessionNotes;
};

/**
 * A context reset as one durable write: under the store's session lock, the notes and a `notes`
 * record (trigger `tool`) standing for everything in view after the leading system messages, except
 * what is pinned (the latest real user request, marked messages; the user's earlier messages only with
 * `pinned.userMessages: true`) and an unfinished tool call, are
 * written in ONE metadata update. So either both are stored or neither is: a failed write throws and
 * changes nothing, and the model keeps its context.
 * @throws whatever the store throws; ContextError `STORE_CONFLICT` when the record does not fit.
 */
export async function writeNewContext(
  store: SessionStore,
  options: {
    readonly sessionKey: string;
    readonly notes: SessionNotes;
    readonly tokenCounter: TokenCounter;
    readonly pinned?: PinnedContextOptions;
    readonly recordId: string;
    readonly signal?: AbortSignal;
  },
): Promise<NewContextOutcome> {
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const write = async (): Promise<NewContextOutcome> => {
    const session = await store.load(options.sessionKey, call);
    const records = sessionCompactions(session);
    const view = sessionView(session.messages, records);
    const record = resetRecord(view, options);
    if (record !== undefined) {
      const { violations } = applyCompactions(session.messages, [...records, record]);
      const own = violations.find((violation) => violation.recordId === record.id);
      if (own !== undefined)
        throw new ContextError({
          code: 'STORE_CONFLICT',
          message: `The context-reset record does not fit the session (${own.type}: ${own.message}).`,
        });
    }
    await store.setMetadata(
      options.sessionKey,
      {
        [NOTES_METADATA_KEY]: options.notes,
        ...(record === undefined
          ? {}
          : { [COMPACTIONS_METADATA_KEY]: [...storedCompactions(session), record] }),
      },
      call,
    );
    return { notes: options.notes, ...(record === undefined ? {} : { record }) };
  };
  return store.withSessionLock === undefined ? write() : store.withSessionLock(options.sessionKey, write);
}

function resetRecord(
  view: readonly Message[],
  options: {
    readonly notes: SessionNotes;
    readonly tokenCounter: TokenCounter;
    readonly pinned?: PinnedContextOptions;
    readonly recordId: string;
  },
): CompactionRecord | undefined {
  // A reset hands the model its own notes in place of the conversation: the user's earlier messages
  // are not kept verbatim unless asked (`pinned.userMessages`); recall and expand still reach them.
  const plan = planCompaction(view, {
    keepRecent: 0,
    tokenCounter: options.tokenCounter,
    pinned: { userMessages: false, ...options.pinned },
  });
  if (plan === undefined) return undefined;
  const id = options.recordId;
  const lineage = runLineage(plan.summarised, plan.pins);
  const { depth } = lineage;
  const tokensBefore = options.tokenCounter.countMessages(plan.run);
  const summary: Message = {
    id: `${id}-summary`,
    role: 'user',
    content:
      `<context-reset record="${id}">\nYou started a new context (new_context): ${plan.summarised.length} earlier items ` +
      `(about ${tokensBefore} tokens) are out of view. Your notes (Session Notes) carry the goal, state, ` +
      `decisions, open tasks and next step; recall searches what was cleared, expand ${JSON.stringify(id)} lists it.\n</context-reset>`,
    metadata: { [COMPACTION_ID_KEY]: id, [COMPACTION_DEPTH_KEY]: depth, [RESET_NOTES_KEY]: options.notes },
  };
  return {
    id,
    kind: 'notes',
    ...lineage,
    summary,
    producer: { strategy: 'new-context' },
    tokensBefore,
    tokensAfter: options.tokenCounter.countMessage(summary) + plan.pinnedTokens,
    trigger: 'tool',
    createdAt: options.notes.updatedAt,
  };
}
