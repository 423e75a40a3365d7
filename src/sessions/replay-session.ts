import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { SessionNotes } from '../core/session-notes.js';
import type { ArchivedSummary } from '../pipeline/build-input.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { compactedView, compactedViewStart } from './compacted-view.js';
import {
  DEFAULT_REPLAY_MAX_MESSAGES,
  type GetHistoryOptions,
  getHistory,
  heldReplay,
  MIN_COMPACTED_REPLAY_MESSAGES,
  type ReplaySession,
} from './get-history.js';
import { storedCompactions } from './session-compactions.js';
import { sessionNotesOf } from './session-notes-of.js';
import type { SessionRecord, SessionStore } from './session-store.js';

/** nanobot's session metadata key for the persisted archived summary `{ text, last_active }`. */
export const LAST_SUMMARY_KEY = '_last_summary';

/** Tokens the model loop keeps free besides the answer when replaying. */
export const REPLAY_MARGIN_TOKENS = 1_024;

/**
 * A replay count cap sized to a context window: one message per 100 tokens of the window, at least
 * 120 and at most 2000 (2000 when the window is unknown or not positive). Not nanobot's behaviour (its
 * model loop replays by tokens only, and the replay has no count cap by default); pass it as
 * `maxMessages` to cap a replay anyway.
 */
export function replayMaxMessages(contextWindowTokens: number): number {
  if (!(contextWindowTokens > 0)) return DEFAULT_REPLAY_MAX_MESSAGES;
  return Math.min(DEFAULT_REPLAY_MAX_MESSAGES, Math.max(120, Math.floor(contextWindowTokens / 100)));
}

/** The model limits a replay is budgeted against. */
export type ReplayBudgetOptions = {
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
};

/** The keys of {@link ReplayBudgetOptions}, for `checkOptions`. @internal */
export const REPLAY_BUDGET_OPTION_KEYS = {
  contextWindowTokens: true,
  maxOutputTokens: true,
} as const satisfies OptionKeys<ReplayBudgetOptions>;

/**
 * nanobot's replay budget: `window − max(1, maxOutput) − 1024`, or, when that is not positive,
 * `max(128, window / 2)`.
 */
export function replayBudget(options: ReplayBudgetOptions): number {
  const available = options.contextWindowTokens - Math.max(1, options.maxOutputTokens) - REPLAY_MARGIN_TOKENS;
  return available > 0 ? available : Math.max(128, Math.floor(options.contextWindowTokens / 2));
}

/**
 * The archived summary persisted in a session's metadata (`_last_summary`, as nanobot stores it), or
 * `undefined` when there is none or its text is blank. A missing or malformed `last_active` falls back
 * to the session's `updatedAt`.
 */
export function archivedSummaryOf(
  record: Pick<SessionRecord, 'metadata' | 'updatedAt'>,
): ArchivedSummary | undefined {
  const value = record.metadata[LAST_SUMMARY_KEY];
  if (typeof value !== 'object' || value === null) return undefined;
  const text: unknown = Reflect.get(value, 'text');
  const lastActive: unknown = Reflect.get(value, 'last_active');
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const valid = typeof lastActive === 'string' && !Number.isNaN(Date.parse(lastActive));
  return { text, lastActive: valid ? lastActive : (record.updatedAt ?? '') };
}

/** What the model loop replays from a stored session: the history, the archived summary and the model's notes. */
export type ReplayedHistory = {
  readonly history: readonly Message[];
  readonly summary?: ArchivedSummary;
  /** The model's notes (context tools), for `BuildInput.notes`. */
  readonly notes?: SessionNotes;
};

/** Options of {@link replaySession} and {@link loadReplayedSession}. */
export type ReplaySessionOptions = ReplayBudgetOptions & {
  readonly tokenCounter: TokenCounter;
  /**
   * Replay at most the newest `maxMessages` (e.g. `replayMaxMessages(contextWindowTokens)`); 0 or
   * less, or `Infinity`, means none, as in nanobot's model loop, which replays by tokens only.
   * @default none
   */
  readonly maxMessages?: number;
  /** Extend the replay back to the user turn that started it (nanobot's subagent follow-ups). @default false */
  readonly extendToUser?: boolean;
};

/** The keys of {@link ReplaySessionOptions}, for `checkOptions`. @internal */
export const REPLAY_SESSION_OPTION_KEYS = {
  ...REPLAY_BUDGET_OPTION_KEYS,
  tokenCounter: true,
  extendToUser: true,
  maxMessages: true,
} as const satisfies OptionKeys<ReplaySessionOptions>;

/**
 * Replays a stored session the way nanobot's model loop does before a turn: `getHistory` capped at
 * {@link replayBudget} tokens, with no count cap unless `maxMessages` gives one (extended back to the
 * user turn with `extendToUser`, as nanobot does for subagent follow-ups), plus the persisted archived
 * summary.
 * Feed both to `builder.build`. A record of the newest messages only (`firstIndex`) replays the same,
 * or throws `INVALID_INPUT` when the replay reaches back before them; {@link loadReplayedSession}
 * loads what a replay needs.
 * @example
 * const { history, summary } = replaySession(await store.load(key), { tokenCounter, contextWindowTokens, maxOutputTokens });
 */
export function replaySession(record: SessionRecord, options: ReplaySessionOptions): ReplayedHistory {
  checkOptions(options, { where: 'replaySession options', known: REPLAY_SESSION_OPTION_KEYS });
  const history = getHistory(viewOf(record), historyOptions(options));
  const summary = archivedSummaryOf(record);
  const notes = sessionNotesOf(record);
  return {
    history,
    ...(summary === undefined ? {} : { summary }),
    ...(notes === undefined ? {} : { notes }),
  };
}

/** Options of {@link loadReplayedSession}: the session, and the replay's. */
export type LoadReplayedSessionOptions = ReplaySessionOptions & {
  readonly sessionKey: string;
  /** Aborts the loads (throws `ABORTED`). */
  readonly signal?: AbortSignal;
};

/** A session as {@link loadReplayedSession} loaded it, and its replay. */
export type LoadedReplay = ReplayedHistory & {
  /** What was loaded: the newest messages (`firstIndex` set), or the whole session when the replay needed it. */
  readonly record: SessionRecord;
};

/** The keys of {@link LoadReplayedSessionOptions}, for `checkOptions`. @internal */
export const LOAD_REPLAYED_SESSION_OPTION_KEYS = {
  ...REPLAY_SESSION_OPTION_KEYS,
  sessionKey: true,
  signal: true,
} as const satisfies OptionKeys<LoadReplayedSessionOptions>;

/**
 * Loads a session and replays it ({@link replaySession}), reading only what the replay can use: the
 * newest 2,000 messages (or `maxMessages`), which hold the replay when its token budget is reached
 * inside them; more only when the replay reaches back further (a session whose newest messages fit
 * the budget whole, a fully archived session whose last user turn is older, `extendToUser` past the
 * cap). So a long-lived agent's turn costs what the replay keeps and what is new, however long the
 * session grew. The history is the one a whole load replays.
 * @example
 * const { history, summary } = await loadReplayedSession(store, { sessionKey, tokenCounter, contextWindowTokens, maxOutputTokens });
 */
export async function loadReplayedSession(
  store: SessionStore,
  options: LoadReplayedSessionOptions,
): Promise<LoadedReplay> {
  checkOptions(options, { where: 'loadReplayedSession options', known: LOAD_REPLAYED_SESSION_OPTION_KEYS });
  const { sessionKey, signal, ...replay } = options;
  const { record, history } = await loadForReplay(store, {
    sessionKey,
    ...(signal === undefined ? {} : { signal }),
    history: historyOptions(replay),
  });
  const summary = archivedSummaryOf(record);
  const notes = sessionNotesOf(record);
  return {
    record,
    history,
    ...(summary === undefined ? {} : { summary }),
    ...(notes === undefined ? {} : { notes }),
  };
}

/**
 * What `getHistory` with `history` needs of a stored session, and its replay: the session's newest
 * messages (up to the count cap, else {@link DEFAULT_REPLAY_MAX_MESSAGES}) when they hold the replay;
 * else the messages from `lastConsolidated` on when those do (an unconsolidated tail longer than the
 * first load); else the whole session. A session with compaction records replays its view from the
 * newest messages when the records account for every older message (a compaction chain over the start
 * of the session: the summary stands for what it replaced, which is not loaded), else from a second
 * load reaching back to where the records stop, else whole. @internal
 */
export async function loadForReplay(
  store: SessionStore,
  load: { readonly sessionKey: string; readonly signal?: AbortSignal; readonly history: GetHistoryOptions },
): Promise<{ readonly record: SessionRecord; readonly history: readonly Message[] }> {
  const call = load.signal === undefined ? {} : { signal: load.signal };
  const requested = load.history.maxMessages ?? 0;
  const first =
    requested > 0 && requested !== Number.POSITIVE_INFINITY ? requested : DEFAULT_REPLAY_MAX_MESSAGES;
  const record = await store.load(load.sessionKey, { lastMessages: first, ...call });
  // A session with compaction records replays its view: from the newest messages when the records
  // account for every older one, else from a load reaching back to where they stop, else whole.
  if (storedCompactions(record).length > 0) return loadCompactedReplay(store, { ...load, record });
  const held = heldReplay(record, load.history);
  if (held !== undefined) return { record, history: held };
  // The unconsolidated tail, plus room for the archived messages a replay keeps (8, back to their user turn).
  const count = (record.firstIndex ?? 0) + record.messages.length;
  const tail = count - record.lastConsolidated + 2 * MIN_COMPACTED_REPLAY_MESSAGES;
  if (record.lastConsolidated > 0 && tail < count) {
    const unconsolidated = await store.load(load.sessionKey, { lastMessages: tail, ...call });
    const history = heldReplay(unconsolidated, load.history);
    if (history !== undefined) return { record: unconsolidated, history };
  }
  const whole = await store.load(load.sessionKey, call);
  return { record: whole, history: getHistory(whole, load.history) };
}

/**
 * The session as the model sees it when it has compaction records (the view), for `getHistory`.
 * @throws ContextError `INVALID_INPUT` for a record of the newest messages whose records do not
 * account for the messages before them (load the whole session, or use loadReplayedSession).
 */
function viewOf(record: SessionRecord): ReplaySession & { readonly warnings: readonly string[] } {
  const view = compactedView(record);
  if (view !== undefined) return view;
  throw new ContextError({
    code: 'INVALID_INPUT',
    message: `This session's compaction records reach back before message ${record.firstIndex ?? 0}, and the record holds only the ${record.messages.length} from there on (a load with lastMessages). Load the whole session (store.load without lastMessages), or use loadReplayedSession, which does when it must.`,
    details: { firstIndex: record.firstIndex ?? 0, messages: record.messages.length },
  });
}

/** How many messages the records name a second partial load includes before where the view starts. */
const VIEW_SEAM_MESSAGES = 8;

/** {@link loadForReplay} of a session with compaction records, given its first (newest) load. */
async function loadCompactedReplay(
  store: SessionStore,
  load: {
    readonly sessionKey: string;
    readonly signal?: AbortSignal;
    readonly history: GetHistoryOptions;
    readonly record: SessionRecord;
  },
): Promise<{ readonly record: SessionRecord; readonly history: readonly Message[] }> {
  const call = load.signal === undefined ? {} : { signal: load.signal };
  const first = compactedView(load.record);
  if (first !== undefined)
    return { record: withWarnings(load.record, first.warnings), history: getHistory(first, load.history) };
  const start = compactedViewStart(load.record, VIEW_SEAM_MESSAGES);
  if (start !== undefined) {
    const count = (load.record.firstIndex ?? 0) + load.record.messages.length;
    const wider = await store.load(load.sessionKey, { lastMessages: count - start, ...call });
    const view = compactedView(wider);
    if (view !== undefined) return { record: wider, history: getHistory(view, load.history) };
  }
  const whole = await store.load(load.sessionKey, call);
  const view = viewOf(whole);
  return { record: withWarnings(whole, view.warnings), history: getHistory(view, load.history) };
}

/** The loaded record with the view's warnings (a record its view leaves out is one). */
function withWarnings(record: SessionRecord, warnings: readonly string[]): SessionRecord {
  return warnings === record.warnings ? record : { ...record, warnings };
}

function historyOptions(options: ReplaySessionOptions): GetHistoryOptions {
  return {
    ...(options.maxMessages === undefined ? {} : { maxMessages: options.maxMessages }),
    maxTokens: replayBudget(options),
    tokenCounter: options.tokenCounter,
    ...(options.extendToUser === undefined ? {} : { extendToUser: options.extendToUser }),
  };
}
