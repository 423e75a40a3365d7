import type { Message } from '../core/message.js';
import type { ArchivedSummary } from '../pipeline/build-input.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { DEFAULT_REPLAY_MAX_MESSAGES, getHistory } from './get-history.js';
import type { SessionRecord } from './session-store.js';

/** nanobot's session metadata key for the persisted archived summary `{ text, last_active }`. */
export const LAST_SUMMARY_KEY = '_last_summary';

/** Tokens the model loop keeps free besides the answer when replaying. */
export const REPLAY_MARGIN_TOKENS = 1_024;

/**
 * nanobot's replay count cap for a context window: one message per 100 tokens of the window, at least
 * 120 and at most 2000 (2000 when the window is unknown or not positive).
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

/** What the model loop replays from a stored session: the history and the archived summary. */
export type ReplayedHistory = {
  readonly history: readonly Message[];
  readonly summary?: ArchivedSummary;
};

/**
 * Replays a stored session the way nanobot's model loop does before a turn: `getHistory` capped at
 * {@link replayMaxMessages} messages and {@link replayBudget} tokens (extended back to the user turn
 * with `extendToUser`, as nanobot does for subagent follow-ups), plus the persisted archived summary.
 * Feed both to `builder.build`.
 * @example
 * const { history, summary } = replaySession(await store.load(key), { tokenCounter, contextWindowTokens, maxOutputTokens });
 */
export function replaySession(
  record: SessionRecord,
  options: ReplayBudgetOptions & { readonly tokenCounter: TokenCounter; readonly extendToUser?: boolean },
): ReplayedHistory {
  const history = getHistory(record, {
    maxMessages: replayMaxMessages(options.contextWindowTokens),
    maxTokens: replayBudget(options),
    tokenCounter: options.tokenCounter,
    ...(options.extendToUser === undefined ? {} : { extendToUser: options.extendToUser }),
  });
  const summary = archivedSummaryOf(record);
  return { history, ...(summary === undefined ? {} : { summary }) };
}
