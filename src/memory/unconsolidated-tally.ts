import type { Message } from '../core/message.js';
import { samePlainData } from '../pipeline/same-plain-data.js';
import { replayStart } from '../sessions/get-history.js';
import { replayMessage } from '../sessions/replay-sanitize.js';
import { loadForReplay } from '../sessions/replay-session.js';
import { storedCompactions } from '../sessions/session-compactions.js';
import type { SessionRecord, SessionStore } from '../sessions/session-store.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Newest messages a check loads first: a turn's new messages and the last one counted fit in it. */
const FIRST_LOAD = 64;

/** Sessions whose running count a tally keeps (the least recently checked is forgotten). */
const KEPT_SESSIONS = 64;

/** What a tally learnt about a session's unconsolidated replay at its last check. */
type Tally = {
  /** Stored messages then. */
  readonly count: number;
  readonly lastConsolidated: number;
  /** Where the replay started (`replayStart`), as a position in the session. */
  readonly start: number;
  /** Tokens of the replayed messages (nanobot's probe without its system prompt, probe and tools). */
  readonly tokens: number;
  /** The newest stored message then, as plain data (a later load parses new objects). */
  readonly newest: Message;
  /** The newest assistant message of the replay's raw slice: the only one a new result may answer. */
  readonly owner: Message | undefined;
};

/** A session's unconsolidated replay: the record it was read from and its tokens. */
export type TalliedReplay = {
  /** The loaded record: the newest messages only, or what `loadForReplay` loaded. */
  readonly record: SessionRecord;
  /** Tokens of the replayed messages. */
  readonly tokens: number;
};

/**
 * A running count of the tokens of each session's unconsolidated replay (what `getHistory` replays
 * with no caps: from `lastConsolidated`, aligned to a user turn, legal, sanitised), kept across
 * `MemoryConsolidator` checks, so that a check on a session that only grew loads and counts what is
 * new instead of the whole unconsolidated part. The count is worked out again from the store (a full
 * replay) when anything else may have changed: the message count shrank, the consolidation cursor
 * moved (this process or another), the newest message counted before is no longer the same (a
 * rewind, a clear, a rewrite), the session has compaction records, the replay's start moved, or a new
 * message could move the replay's start (a tool result that does not answer the newest assistant
 * message, or the first user message of a replay that had none). @internal
 */
export class UnconsolidatedTally {
  readonly #counter: TokenCounter;
  readonly #tallies = new Map<string, Tally>();

  constructor(counter: TokenCounter) {
    this.#counter = counter;
  }

  /** The session's replay tokens, from the running count when it still holds, else from a full replay. */
  async replay(
    store: SessionStore,
    load: { readonly sessionKey: string; readonly signal?: AbortSignal },
  ): Promise<TalliedReplay> {
    const known = this.#tallies.get(load.sessionKey);
    if (known !== undefined) {
      const grown = await this.#grown(store, { ...load, known });
      if (grown !== undefined) return grown;
    }
    const loaded = await loadForReplay(store, { ...load, history: {} });
    const tokens = this.#counter.countMessages(loaded.history);
    this.#remember(load.sessionKey, tallyOf(loaded.record, tokens));
    return { record: loaded.record, tokens };
  }

  /** Forgets what was learnt about a session (its next check replays it in full). */
  forget(sessionKey: string): void {
    this.#tallies.delete(sessionKey);
  }

  /** The replay of a session that only grew since `known`, or `undefined` when that is not certain. */
  async #grown(
    store: SessionStore,
    load: { readonly sessionKey: string; readonly signal?: AbortSignal; readonly known: Tally },
  ): Promise<TalliedReplay | undefined> {
    const { known } = load;
    const record = await grownRecord(store, load);
    if (record === undefined) return undefined;
    const first = record.firstIndex ?? 0;
    let tokens = known.tokens;
    let owner = known.owner;
    for (let index = known.count - first; index < record.messages.length; index += 1) {
      const message = record.messages[index] as Message; // index is in range
      if (message.role === 'assistant') owner = message;
      // A result the newest assistant did not call may move the replay's legal start: replay again.
      if (message.role === 'tool' && !declares(owner, message.toolCallId)) return undefined;
      const replayed = replayMessage(message, true);
      if (replayed !== undefined) tokens += this.#counter.countMessage(replayed);
    }
    const count = first + record.messages.length;
    const newest = record.messages.at(-1) as Message; // it holds known.newest at least
    this.#remember(load.sessionKey, { ...known, count, tokens, owner, newest });
    return { record, tokens };
  }

  #remember(sessionKey: string, tally: Tally | undefined): void {
    this.#tallies.delete(sessionKey);
    if (tally === undefined) return;
    this.#tallies.set(sessionKey, tally);
    if (this.#tallies.size > KEPT_SESSIONS) this.#tallies.delete(this.#tallies.keys().next().value as string); // size > 0
  }
}

/**
 * The newest messages of a session that only grew since `known` (from the newest one counted then
 * on), or `undefined` when it may have changed otherwise: fewer messages, the cursor moved, that
 * newest message replaced, compaction records, or the replay's start moved.
 */
async function grownRecord(
  store: SessionStore,
  load: { readonly sessionKey: string; readonly signal?: AbortSignal; readonly known: Tally },
): Promise<SessionRecord | undefined> {
  const { known } = load;
  const call = load.signal === undefined ? {} : { signal: load.signal };
  const sizeOf = (loaded: SessionRecord) => (loaded.firstIndex ?? 0) + loaded.messages.length;
  let record = await store.load(load.sessionKey, { lastMessages: FIRST_LOAD, ...call });
  if (sizeOf(record) - known.count + 1 > record.messages.length)
    record = await store.load(load.sessionKey, { lastMessages: sizeOf(record) - known.count + 1, ...call });
  const count = sizeOf(record);
  if (count < known.count || record.lastConsolidated !== known.lastConsolidated) return undefined;
  if (storedCompactions(record).length > 0) return undefined;
  const newest = record.messages[known.count - 1 - (record.firstIndex ?? 0)];
  if (newest === undefined || !samePlainData(newest, known.newest)) return undefined;
  return startOf(record, count) === known.start ? record : undefined;
}

/**
 * What a full replay of `record` lets later checks build on, or `undefined` when they cannot: no
 * message, compaction records, a start the record does not hold, or no user message from the start
 * on (the first one to come would move where the replay begins).
 */
function tallyOf(record: SessionRecord, tokens: number): Tally | undefined {
  const newest = record.messages.at(-1);
  if (newest === undefined || storedCompactions(record).length > 0) return undefined;
  const first = record.firstIndex ?? 0;
  const start = startOf(record, first + record.messages.length);
  if (start === undefined || start < first || start !== replayStart(record, {})) return undefined;
  const slice = record.messages.slice(start - first);
  const firstUser = slice.findIndex((message) => message.role === 'user');
  if (firstUser < 0) return undefined;
  return {
    count: first + record.messages.length,
    lastConsolidated: record.lastConsolidated,
    start,
    tokens,
    newest,
    owner: ownerOf(slice, firstUser),
  };
}

/**
 * The assistant message a new tool result must answer for the replay's legal start to stay where it
 * is: the newest assistant of `slice` after its first user message (where the replay is aligned),
 * unless a result after it answers none of its calls (the legal start moved past it); else none.
 */
function ownerOf(slice: readonly Message[], firstUser: number): Message | undefined {
  const at = slice.findLastIndex((message) => message.role === 'assistant');
  if (at <= firstUser) return undefined;
  const owner = slice[at];
  for (let index = at + 1; index < slice.length; index += 1) {
    const message = slice[index] as Message; // index is in range
    if (message.role === 'tool' && !declares(owner, message.toolCallId)) return undefined;
  }
  return owner;
}

/**
 * Where the replay of a session of `count` messages starts (`replayStart`), worked out from its
 * newest messages: the cursor, or, when fewer than 8 messages follow it, the user turn of the last
 * 8 (asked of `replayStart` as if every message were archived, so that it reads only the tail);
 * `undefined` when the record does not hold that turn.
 */
function startOf(record: SessionRecord, count: number): number | undefined {
  if (record.lastConsolidated <= 0) return 0;
  const back = replayStart({ ...record, lastConsolidated: count }, {});
  return back === undefined ? undefined : Math.min(record.lastConsolidated, back);
}

/** True when `assistant` declares the (non-empty) id `id` (as `findLegalMessageStart` reads it). */
function declares(assistant: Message | undefined, id: string | undefined): boolean {
  if (assistant === undefined || id === undefined || id === '') return false;
  return (assistant.toolCalls ?? []).some((call) => call.id === id);
}
