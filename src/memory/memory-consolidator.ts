// Over 300 lines: maybeConsolidate, archiveTail and consolidateIdle share the per-session lock, the round loop and the summary bookkeeping.
import { ContextError } from '../core/errors.js';
import { user } from '../core/factories.js';
import { getHistory } from '../sessions/get-history.js';
import { KeyedQueue } from '../sessions/keyed-queue.js';
import { LAST_SUMMARY_KEY } from '../sessions/replay-session.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type ArchiveChunkStep, archiveChunk } from './archive-chunk.js';
import { archiveRequestContext } from './archive-request-context.js';
import {
  type ArchiveOutcome,
  type ConsolidationResult,
  type ConsolidationRound,
  describeArchiveOutcome,
  isDegraded,
  type TailArchiveResult,
} from './consolidation-result.js';
import { consolidatorSystemMessage } from './consolidator-system-message.js';
import { HistoryLog } from './history-log.js';
import { type HistorySink, LegacyHistoryFile } from './history-sink.js';
import {
  consolidationBudget,
  DEFAULT_MEMORY_CONSOLIDATOR,
  type MemoryConsolidatorOptions,
  validateMemoryConsolidatorOptions,
} from './memory-consolidator-options.js';
import { pickConsolidationBoundary } from './pick-consolidation-boundary.js';
import { pickArchiveChunkEnd, planArchiveRequest } from './plan-archive-request.js';
import { UnconsolidatedTally } from './unconsolidated-tally.js';

/** nanobot's probe message, after the replay. */
const PROBE = user('[token-probe]', { id: 'probe' });

/** Archive bookkeeping leaves the session's recency alone. */
const KEEP_RECENCY = Object.freeze({ preserveUpdatedAt: true });

/**
 * Token-triggered consolidation: once the full prompt of a session reaches the
 * budget (`window − maxOutputTokens − 1024`), archives the oldest turns, round by round, until it is
 * back under `ratio × budget`. Each round is one model request holding as many turns as nanobot's
 * rules let one request hold (a backlog larger than that takes several rounds), ending on a user
 * turn and reusing the ordinary turn's system prompt and replay prefix plus our instruction.
 *
 * What a round does with the reply decides where the pointer (`lastConsolidated`) goes:
 * - a usable summary is appended to history.jsonl (`(nothing)` writes nothing) and the pointer
 *   passes the turns;
 * - a transient model failure (5xx, 429, timeouts, resets after the retries) writes nanobot's raw
 *   archive of the turns (split into entries, never truncated), passes them, and stops the call;
 * - a configuration failure (401, 403, 404, unreachable) or an unusable reply throws and changes
 *   nothing for that round.
 * No message is ever deleted. The last summary is kept in the session metadata as `_last_summary`.
 * Archiving is not activity: the pointer and the summary are written with `preserveUpdatedAt`, so the
 * session's `updatedAt` (its recency, which idle compaction compares with the TTL) stays what the
 * last append made it, as nanobot's saves leave `updated_at` alone.
 */
export class MemoryConsolidator {
  readonly #options: MemoryConsolidatorOptions;
  readonly #counter: TokenCounter;
  readonly #history: HistorySink;
  readonly #queue = new KeyedQueue();
  readonly #tally: UnconsolidatedTally;

  /** @throws ContextError `INVALID_OPTIONS` for a ratio outside 0.1–0.95 or a window with no budget. */
  constructor(options: MemoryConsolidatorOptions) {
    validateMemoryConsolidatorOptions(options);
    this.#options = options;
    // Cached by message identity, shared with everything else that counts with this counter.
    this.#counter = withTokenCache(options.tokenCounter ?? new SimpleTokenCounter());
    this.#tally = new UnconsolidatedTally(this.#counter);
    const sinkOptions = {
      workspace: options.workspace,
      ...(options.now === undefined ? {} : { now: options.now }),
    };
    this.#history =
      options.historyFormat === 'legacy-markdown'
        ? new LegacyHistoryFile(sinkOptions)
        : new HistoryLog(sinkOptions);
  }

  /** `contextWindowTokens − maxOutputTokens − 1024`. */
  get budget(): number {
    return consolidationBudget(this.#options);
  }

  /**
   * Consolidates the session if its prompt reached the budget. Serialised per session in this process,
   * and across processes when the store offers `withSessionLock` (JSONL, SQLite, PostgreSQL do).
   * @throws ChatModelError on a configuration failure or an unusable reply (earlier rounds stay done)
   * @throws ContextError `INVALID_OPTIONS` when the system prompt and tools alone exceed the budget
   */
  maybeConsolidate(
    sessionKey: string,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<ConsolidationResult> {
    return this.#exclusive(sessionKey, () => this.#consolidate(sessionKey, options.signal));
  }

  /**
   * Archives the whole unconsolidated tail of a session (idle compaction, `/new`), in as many
   * model-sized chunks as it takes, storing the summary with `last_active` = the session's pre-archive
   * `updatedAt`, which it leaves as it was. Never deletes messages.
   * @throws as {@link MemoryConsolidator.maybeConsolidate}
   */
  archiveTail(
    sessionKey: string,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<TailArchiveResult> {
    return this.#exclusive(sessionKey, async () => {
      const first = await this.#options.store.load(sessionKey, signalOption(options.signal));
      return this.#savingSummary(first, async (rounds) => {
        let record = first;
        while (record.lastConsolidated < record.messages.length) {
          const round = await this.#round(record, {
            limit: record.messages.length,
            isTail: true,
            signal: options.signal,
          });
          if (round === undefined) break;
          rounds.push(round);
          record = { ...record, lastConsolidated: round.end };
          if (isDegraded(round)) return { status: 'degraded', rounds };
        }
        return { status: rounds.length === 0 ? 'empty' : 'archived', rounds };
      });
    });
  }

  /**
   * Idle compaction: archives the unconsolidated tail of every session quiet for at least
   * `idleAfterMs` (compared with `updatedAt`, inclusive; unparsable → not idle), skipping `dream:`
   * sessions. `idleAfterMs: 0` turns it off (nanobot's `idleCompactAfterMinutes: 0`). Sessions are
   * handled one by one; stops after a degraded one (the model is failing) and resolves to what
   * happened to each session that was archived. An archived session keeps its `updatedAt`, so it
   * still reads as idle; its `provider_state` record (JSONL) is dropped as the pointer advances.
   * @throws as {@link MemoryConsolidator.maybeConsolidate}; ContextError `INVALID_OPTIONS` for a negative `idleAfterMs`
   */
  async consolidateIdle(options: {
    readonly idleAfterMs: number;
    readonly now?: Date;
    readonly signal?: AbortSignal;
  }): Promise<readonly ({ readonly sessionKey: string } & TailArchiveResult)[]> {
    if (!(options.idleAfterMs >= 0)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `idleAfterMs must be ≥ 0 (0 turns idle compaction off), got ${options.idleAfterMs}.`,
      });
    }
    if (options.idleAfterMs === 0) return [];
    const now = (options.now ?? (this.#options.now ?? (() => new Date()))()).getTime();
    const results: ({ sessionKey: string } & TailArchiveResult)[] = [];
    for (const summary of await this.#options.store.list(signalOption(options.signal))) {
      if (summary.key.startsWith('dream:') || summary.updatedAt === undefined) continue;
      const updated = Date.parse(summary.updatedAt);
      if (Number.isNaN(updated) || now - updated < options.idleAfterMs) continue;
      const result = await this.archiveTail(summary.key, signalOption(options.signal));
      if (result.status === 'empty') continue;
      results.push({ sessionKey: summary.key, ...result });
      if (result.status === 'degraded') break;
    }
    return results;
  }

  /**
   * Archives `messages[lastConsolidated:end]` of a loaded session in one request, or raw when
   * one request cannot hold them; does not move the pointer.
   * @throws as {@link MemoryConsolidator.maybeConsolidate}
   */
  async archive(
    record: SessionRecord,
    options: { readonly end: number; readonly signal?: AbortSignal },
  ): Promise<ArchiveOutcome | undefined> {
    if (options.end <= record.lastConsolidated) return undefined;
    const context = await archiveRequestContext(record, { options: this.#options, counter: this.#counter });
    return this.#archiveChunk(record, {
      end: options.end,
      plan: planArchiveRequest(context, options.end),
      signal: options.signal,
    });
  }

  async #consolidate(sessionKey: string, signal: AbortSignal | undefined): Promise<ConsolidationResult> {
    const budget = this.budget;
    const ratio = this.#options.consolidationRatio ?? DEFAULT_MEMORY_CONSOLIDATOR.consolidationRatio;
    const target = Math.floor(budget * ratio);
    const base = { budget, target, rounds: [] };
    if (this.#options.contextWindowTokens <= 0)
      return { status: 'disabled', ...base, estimateBefore: 0, estimateAfter: 0 };
    // The estimate replays every unconsolidated message (getHistory's defaults, nanobot's probe),
    // counted as a running total per session that a check on a session that only grew brings up to
    // date from its new messages (UnconsolidatedTally); archiving loads all.
    const { store } = this.#options;
    const tallied = await this.#tally.replay(store, { sessionKey, ...signalOption(signal) });
    const estimated = tallied.record;
    if (estimated.messages.length === 0)
      return { status: 'empty', ...base, estimateBefore: 0, estimateAfter: 0 };
    const estimateBefore = await this.#estimateFrom(estimated, tallied.tokens);
    if (estimateBefore <= 0 || estimateBefore < budget) {
      return { status: 'under-budget', ...base, estimateBefore, estimateAfter: estimateBefore };
    }
    const first =
      (estimated.firstIndex ?? 0) > 0 ? await store.load(sessionKey, signalOption(signal)) : estimated;
    const run = await this.#savingSummary(first, (rounds) =>
      this.#rounds(first, { rounds, estimate: estimateBefore, target, signal }),
    );
    return { ...run, budget, target, estimateBefore };
  }

  /** Rounds while the estimate is above the target, at most `maxRounds`. */
  async #rounds(
    first: SessionRecord,
    state: {
      readonly rounds: ConsolidationRound[];
      readonly estimate: number;
      readonly target: number;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<Pick<ConsolidationResult, 'status' | 'rounds' | 'estimateAfter'>> {
    let record = first;
    let estimate = state.estimate;
    const { rounds } = state;
    const maxRounds = this.#options.maxRounds ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRounds;
    while (estimate > state.target && rounds.length < maxRounds) {
      const boundary = pickConsolidationBoundary(record.messages, {
        start: record.lastConsolidated,
        tokensNeeded: Math.max(1, estimate - state.target),
        tokenCounter: this.#counter,
      });
      const round =
        boundary === undefined
          ? undefined
          : await this.#round(record, { limit: boundary, isTail: false, signal: state.signal });
      if (round === undefined) {
        this.#options.onProgress?.(`${record.key}: no safe boundary (no later user turn)`);
        return {
          status: rounds.length === 0 ? 'no-boundary' : 'consolidated',
          rounds,
          estimateAfter: estimate,
        };
      }
      rounds.push(round);
      record = { ...record, lastConsolidated: round.end };
      estimate = await this.#estimate(record);
      if (isDegraded(round)) return { status: 'degraded', rounds, estimateAfter: estimate };
    }
    return { status: 'consolidated', rounds, estimateAfter: estimate };
  }

  /**
   * Runs `work`, which pushes its rounds; the last summary among them is saved as `_last_summary`
   * once at the end, also when `work` throws after some rounds, with `last_active` =
   * the session's `updatedAt` before archiving.
   */
  async #savingSummary<T>(
    first: SessionRecord,
    work: (rounds: ConsolidationRound[]) => Promise<T>,
  ): Promise<T> {
    const rounds: ConsolidationRound[] = [];
    try {
      return await work(rounds);
    } finally {
      const last = rounds.findLast((round) => round.outcome.kind === 'summary')?.outcome;
      if (last?.kind === 'summary') await this.#saveSummary(first, last.text);
    }
  }

  /**
   * One round: the largest chunk one request holds (up to `limit`), archived, then the pointer moved
   * past it. `undefined` when there is no chunk end.
   */
  async #round(
    record: SessionRecord,
    options: { readonly limit: number; readonly isTail: boolean; readonly signal: AbortSignal | undefined },
  ): Promise<ConsolidationRound | undefined> {
    const context = await archiveRequestContext(record, { options: this.#options, counter: this.#counter });
    const picked = pickArchiveChunkEnd(context, options);
    if (picked === undefined) return undefined;
    const outcome = await this.#archiveChunk(record, { ...picked, signal: options.signal });
    const start = record.lastConsolidated;
    // Only here does the pointer move: over turns summarised, found to hold nothing, or archived raw whole.
    await this.#options.store.setLastConsolidated(record.key, picked.end, {
      ...signalOption(options.signal),
      ...KEEP_RECENCY,
    });
    this.#options.onProgress?.(
      `${record.key}: archived messages ${start}–${picked.end} (${describeArchiveOutcome(outcome)})`,
    );
    return { start, end: picked.end, outcome };
  }

  #archiveChunk(
    record: SessionRecord,
    step: Pick<ArchiveChunkStep, 'end' | 'plan' | 'signal'>,
  ): Promise<ArchiveOutcome> {
    return archiveChunk(record, { ...step, options: this.#options, history: this.#history });
  }

  #exclusive<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    const { store } = this.#options;
    return this.#queue.run(sessionKey, () =>
      store.withSessionLock === undefined ? task() : store.withSessionLock(sessionKey, task),
    );
  }

  /** nanobot's probe prompt: system prompt + full replay + `[token-probe]` + tool schemas. */
  #estimate(record: SessionRecord): Promise<number> {
    return this.#estimateFrom(record, this.#counter.countMessages(getHistory(record)));
  }

  /** The probe prompt's tokens, given those of the replay (`countMessages` is a sum). */
  async #estimateFrom(record: SessionRecord, replayTokens: number): Promise<number> {
    const framing = [await consolidatorSystemMessage(record, this.#options), PROBE];
    return (
      this.#counter.countMessages(framing) +
      replayTokens +
      this.#counter.countTools(this.#options.tools ?? [])
    );
  }

  async #saveSummary(first: SessionRecord, text: string): Promise<void> {
    const active = first.updatedAt ?? (this.#options.now ?? (() => new Date()))().toISOString();
    await this.#options.store.setMetadata(
      first.key,
      { [LAST_SUMMARY_KEY]: { text, last_active: active } },
      KEEP_RECENCY,
    );
  }
}

function signalOption(signal: AbortSignal | undefined): { readonly signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
