import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import type { Message } from '../core/message.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { hasNanobotFlag } from './nanobot-fields.js';
import { replayMessage } from './replay-sanitize.js';

/** Messages a fully archived session still replays (nanobot's `MIN_COMPACTED_REPLAY_MESSAGES`). */
export const MIN_COMPACTED_REPLAY_MESSAGES = 8;

/**
 * How many of a session's newest messages `loadReplayedSession` and the consolidator load first; they
 * load more only when the replay needs more (it has no count cap unless one is given).
 */
export const DEFAULT_REPLAY_MAX_MESSAGES = 2000;

/** The part of a session {@link getHistory} reads. */
export type ReplaySession = {
  /** The session's messages, or its newest ones from `firstIndex` on (a load with `lastMessages`). */
  readonly messages: readonly Message[];
  readonly lastConsolidated: number;
  /** The position in the session of `messages[0]`. @default 0 */
  readonly firstIndex?: number;
};

/** Options for {@link getHistory}. */
export type GetHistoryOptions = {
  /**
   * Count cap: replay at most the newest `maxMessages` (nanobot's `max_messages`); 0 or less, or
   * `Infinity`, means none, as in nanobot, whose model loop replays by tokens only. @default none
   */
  readonly maxMessages?: number;
  /** Token cap, the normal model path; 0 = none. @default 0 */
  readonly maxTokens?: number;
  /** Counts messages for `maxTokens`. @default an EstimatingTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** With `maxMessages`, extend the window back to the user turn that started it. @default false */
  readonly extendToUser?: boolean;
  /** False → the public view: the exact recorded runtime-context suffix is stripped. @default true */
  readonly includeRuntimeContext?: boolean;
};

/** The keys of {@link GetHistoryOptions}, for `checkOptions`. @internal */
export const GET_HISTORY_OPTION_KEYS = {
  maxMessages: true,
  maxTokens: true,
  tokenCounter: true,
  extendToUser: true,
  includeRuntimeContext: true,
} as const satisfies OptionKeys<GetHistoryOptions>;

/** Counts for the token cap when no counter is given (one, so its cache serves every call). */
const DEFAULT_COUNTER = new EstimatingTokenCounter();

/** A stored message's replayed form (`undefined`: replay leaves it out), and its fields when replayed. */
type Replay = { readonly source: Message; readonly replayed: Message | undefined };

/**
 * The replayed form of each stored message seen, per view: a session kept in memory and replayed
 * every turn gives the builder the same message objects each time, so what it learnt about them by
 * identity (counts, offloads, the history window) is reused instead of being worked out again from
 * their text. A message whose fields were replaced in place since is replayed again.
 */
const WITH_RUNTIME_CONTEXT = new WeakMap<Message, Replay>();
const PUBLIC_VIEW = new WeakMap<Message, Replay>();

/** True when `message` still has the field values `source` had (compared by identity, one level). */
function sameFields(source: Message, message: Message): boolean {
  const keys = Object.keys(message) as (keyof Message)[];
  if (keys.length !== Object.keys(source).length) return false;
  for (const key of keys) if (source[key] !== message[key]) return false;
  return true;
}

/**
 * Replays a stored session for the model, with nanobot's rules: start at `lastConsolidated`
 * but keep at least the last 8 messages (extended back to their user turn); the count cap when one is
 * given (not applied when the archived tail replayed past `lastConsolidated` keeps fewer unarchived
 * messages than the cap);
 * align to a user turn; drop an illegal tool-result prefix; per-message sanitising and field
 * whitelist; then the token cap, walking from the newest message (always kept), re-aligning to a
 * user turn or recovering the last user turn even over budget, and dropping an illegal prefix again.
 * Pure: the session is not changed; a stored message object replays to the same object every call.
 */
export function getHistory(session: ReplaySession, options: GetHistoryOptions = {}): readonly Message[] {
  checkOptions(options, { where: 'getHistory options', known: GET_HISTORY_OPTION_KEYS });
  const history = heldReplay(session, options);
  if (history !== undefined) return history;
  const firstIndex = session.firstIndex ?? 0;
  throw new ContextError({
    code: 'INVALID_INPUT',
    message: `This replay reaches back before message ${firstIndex} of the session, and the record holds only the ${session.messages.length} from there on (a load with lastMessages). Load the whole session (store.load without lastMessages), or use loadReplayedSession, which does when it must.`,
    details: { firstIndex, messages: session.messages.length },
  });
}

/**
 * {@link getHistory} of `session`, or `undefined` when the record (the newest messages of a session)
 * does not hold what the replay needs. Without a count cap the replay starts at `lastConsolidated`,
 * which may lie before the held messages; the token cap still gives the whole session's replay when
 * it stops inside them with a user turn kept: the messages before cannot change it. @internal
 */
export function heldReplay(
  session: ReplaySession,
  options: GetHistoryOptions,
): readonly Message[] | undefined {
  const start = replayStart(session, options);
  if (start !== undefined) return replayFrom(session, { start, options }).history;
  const hasCountCap = (options.maxMessages ?? 0) > 0 && options.maxMessages !== Number.POSITIVE_INFINITY;
  if (hasCountCap || options.extendToUser === true || !((options.maxTokens ?? 0) > 0)) return undefined;
  const held = replayFrom(session, { start: session.firstIndex ?? 0, options });
  return held.isSettled ? held.history : undefined;
}

/**
 * The replay of the messages from position `start` on; `isSettled` when the token cap stopped inside
 * them and kept a user turn (messages before `start` could not change the result).
 */
function replayFrom(
  session: ReplaySession,
  { start, options }: { readonly start: number; readonly options: GetHistoryOptions },
): { readonly history: readonly Message[]; readonly isSettled: boolean } {
  const { messages } = session;
  const firstIndex = session.firstIndex ?? 0;
  let slice = messages.slice(start - firstIndex);
  slice = slice.slice(alignToUser(slice));
  slice = slice.slice(findLegalMessageStart(slice));
  const includeRuntimeContext = options.includeRuntimeContext ?? true;
  const replays = includeRuntimeContext ? WITH_RUNTIME_CONTEXT : PUBLIC_VIEW;
  const out: Message[] = [];
  for (const message of slice) {
    let known = replays.get(message);
    if (known === undefined || !sameFields(known.source, message)) {
      known = { source: { ...message }, replayed: replayMessage(message, includeRuntimeContext) };
      replays.set(message, known);
    }
    if (known.replayed !== undefined) out.push(known.replayed);
  }
  const maxTokens = options.maxTokens ?? 0;
  return maxTokens > 0
    ? capByTokens(out, { maxTokens, counter: withTokenCache(options.tokenCounter ?? DEFAULT_COUNTER) })
    : { history: out, isSettled: false };
}

/** A session's messages by their position in the session, of which those from `first` on are held. */
type Positions = {
  readonly first: number;
  readonly count: number;
  readonly at: (index: number) => Message | undefined;
};

/**
 * Steps 1 and 3 of the replay: the archive-aware start, then the optional count cap, as a position
 * in the session; `undefined` when working it out reads a message before `session.firstIndex`.
 * @internal
 */
export function replayStart(session: ReplaySession, options: GetHistoryOptions): number | undefined {
  const { messages } = session;
  const first = session.firstIndex ?? 0;
  const view: Positions = { first, count: first + messages.length, at: (index) => messages[index - first] };
  const { count } = view;
  const last = Math.max(0, Math.min(session.lastConsolidated, count));
  let start = last;
  if (last > 0) {
    const back = extendBackToUser(view, { index: Math.max(0, count - MIN_COMPACTED_REPLAY_MESSAGES) });
    if (back === undefined) return undefined;
    start = Math.min(last, back);
  }
  const requested = options.maxMessages ?? 0;
  const cap = requested > 0 ? requested : Number.POSITIVE_INFINITY;
  const uncapped = start < last && count - last < cap;
  let result = count - cap;
  if (uncapped || count - start <= cap) result = start;
  else if (options.extendToUser === true) {
    const back = extendBackToUser(view, { index: result, floor: start });
    if (back === undefined) return undefined;
    result = Math.max(start, back);
  }
  return result < first ? undefined : result;
}

/**
 * Moves `index` back to the user message that started the sequence when the messages from `index`
 * on hold no user message (and one more back when that user follows a `_channel_delivery` message),
 * not below `floor`; `undefined` when that needs a message before `view.first`.
 */
function extendBackToUser(
  view: Positions,
  { index, floor = 0 }: { readonly index: number; readonly floor?: number },
): number | undefined {
  if (index < view.first) return undefined;
  for (let cursor = index; cursor < view.count; cursor += 1)
    if (view.at(cursor)?.role === 'user') return index;
  let cursor = index - 1;
  while (cursor >= floor && cursor >= view.first && view.at(cursor)?.role !== 'user') cursor -= 1;
  if (cursor < floor) return index;
  // The user turn (or the message just before it, which says whether it starts there) is not held.
  const previous = cursor - 1;
  if (cursor < view.first || (previous >= floor && previous >= 0 && previous < view.first)) return undefined;
  const before = previous >= floor ? view.at(previous) : undefined;
  return before !== undefined && hasNanobotFlag(before, '_channel_delivery') ? previous : cursor;
}

/** Index of the first user message (or the `_channel_delivery` message right before it); 0 if none. */
function alignToUser(messages: readonly Message[]): number {
  const first = messages.findIndex((message) => message.role === 'user');
  if (first <= 0) return 0;
  const before = messages[first - 1];
  return before !== undefined && hasNanobotFlag(before, '_channel_delivery') ? first - 1 : first;
}

/** Step 7, the token cap; `isSettled` when it stopped before the first message and kept a user turn. */
function capByTokens(
  messages: readonly Message[],
  { maxTokens, counter }: { readonly maxTokens: number; readonly counter: TokenCounter },
): { readonly history: readonly Message[]; readonly isSettled: boolean } {
  if (messages.length === 0) return { history: messages, isSettled: false };
  let total = 0;
  let start = messages.length;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const cost = counter.countMessage(messages[index] as Message);
    if (index < messages.length - 1 && total + cost > maxTokens) break;
    total += cost;
    start = index;
  }
  let kept = messages.slice(start);
  const firstUser = kept.findIndex((message) => message.role === 'user');
  if (firstUser >= 0) kept = kept.slice(firstUser);
  else {
    const lastUser = messages.findLastIndex((message) => message.role === 'user');
    if (lastUser >= 0) kept = messages.slice(lastUser);
  }
  return { history: kept.slice(findLegalMessageStart(kept)), isSettled: start > 0 && firstUser >= 0 };
}
