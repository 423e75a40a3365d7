import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import type { Message } from '../core/message.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { hasNanobotFlag } from './nanobot-fields.js';
import { replayMessage } from './replay-sanitize.js';

/** Messages a fully archived session still replays (nanobot's `MIN_COMPACTED_REPLAY_MESSAGES`). */
export const MIN_COMPACTED_REPLAY_MESSAGES = 8;

/** The count cap when none is given (nanobot's `FILE_MAX_MESSAGES`). */
export const DEFAULT_REPLAY_MAX_MESSAGES = 2000;

/** The part of a session {@link getHistory} reads. */
export type ReplaySession = {
  readonly messages: readonly Message[];
  readonly lastConsolidated: number;
};

/** Options for {@link getHistory}. */
export type GetHistoryOptions = {
  /**
   * Count cap; 0 or less means the default, like nanobot; `Infinity` turns it off. The model loop
   * passes `replayMaxMessages(contextWindowTokens)` (see `replaySession`). @default 2000
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
 * but keep at least the last 8 messages (extended back to their user turn); the count cap (2000 by
 * default; not applied when the archived tail replayed past `lastConsolidated` keeps fewer unarchived
 * messages than the cap);
 * align to a user turn; drop an illegal tool-result prefix; per-message sanitising and field
 * whitelist; then the token cap, walking from the newest message (always kept), re-aligning to a
 * user turn or recovering the last user turn even over budget, and dropping an illegal prefix again.
 * Pure: the session is not changed; a stored message object replays to the same object every call.
 */
export function getHistory(session: ReplaySession, options: GetHistoryOptions = {}): readonly Message[] {
  const { messages } = session;
  const start = replayStart(session, options);
  let slice = messages.slice(start);
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
    ? capByTokens(out, maxTokens, withTokenCache(options.tokenCounter ?? DEFAULT_COUNTER))
    : out;
}

/** Steps 1 and 3 of the replay: the archive-aware start, then the optional count cap. */
function replayStart(session: ReplaySession, options: GetHistoryOptions): number {
  const { messages } = session;
  const last = Math.max(0, Math.min(session.lastConsolidated, messages.length));
  const tail = Math.max(0, messages.length - MIN_COMPACTED_REPLAY_MESSAGES);
  const start = last > 0 ? Math.min(last, extendBackToUser(messages, tail)) : last;
  const requested = options.maxMessages ?? 0;
  const cap = requested > 0 ? requested : DEFAULT_REPLAY_MAX_MESSAGES;
  const uncapped = start < last && messages.length - last < cap;
  if (uncapped || messages.length - start <= cap) return start;
  const capped = messages.length - cap;
  return options.extendToUser === true ? Math.max(start, extendBackToUser(messages, capped, start)) : capped;
}

/**
 * Moves `index` back to the user message that started the sequence when `messages[index:]` holds no
 * user message (and one more back when that user follows a `_channel_delivery` message).
 */
function extendBackToUser(messages: readonly Message[], index: number, floor = 0): number {
  if (messages.slice(index).some((message) => message.role === 'user')) return index;
  for (let cursor = index - 1; cursor >= floor; cursor -= 1) {
    if (messages[cursor]?.role !== 'user') continue;
    const before = messages[cursor - 1];
    return before !== undefined && cursor - 1 >= floor && hasNanobotFlag(before, '_channel_delivery')
      ? cursor - 1
      : cursor;
  }
  return index;
}

/** Index of the first user message (or the `_channel_delivery` message right before it); 0 if none. */
function alignToUser(messages: readonly Message[]): number {
  const first = messages.findIndex((message) => message.role === 'user');
  if (first <= 0) return 0;
  const before = messages[first - 1];
  return before !== undefined && hasNanobotFlag(before, '_channel_delivery') ? first - 1 : first;
}

function capByTokens(
  messages: readonly Message[],
  maxTokens: number,
  counter: TokenCounter,
): readonly Message[] {
  if (messages.length === 0) return messages;
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
  return kept.slice(findLegalMessageStart(kept));
}
