// Over 300 lines: the consolidation loop, tail archiving and the archive step share one set of resolved options.
import { ContextError } from '../core/errors.js';
import { system, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import type { ChatModelError } from '../llm/chat-model-error.js';
import { toChatModelError } from '../llm/to-chat-model-error.js';
import type { ArchivedSummary } from '../pipeline/build-input.js';
import { getHistory } from '../sessions/get-history.js';
import { KeyedQueue } from '../sessions/keyed-queue.js';
import { archivedSummaryOf, LAST_SUMMARY_KEY } from '../sessions/replay-session.js';
import type { SessionRecord, SessionStore } from '../sessions/session-store.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { DEFAULT_ARCHIVE_INSTRUCTION } from './archive-instruction.js';
import { HistoryLog } from './history-log.js';
import { type HistorySink, LegacyHistoryFile } from './history-sink.js';
import { pickConsolidationBoundary } from './pick-consolidation-boundary.js';
import {
  type ArchiveRequestContext,
  pickArchiveChunkEnd,
  planArchiveRequest,
} from './plan-archive-request.js';
import { formatRawArchiveEntries } from './raw-archive.js';
import { usableReplyText } from './usable-reply-text.js';

/** Builds the system prompt of an ordinary turn, so archive requests share its prompt-cache prefix. */
export type SystemPromptSource = (context: {
  readonly sessionKey: string;
  /** The session's persisted archived summary (`_last_summary`), if any. */
  readonly summary?: ArchivedSummary;
}) => Promise<string> | string;

/** Options for {@link MemoryConsolidator}. */
export type MemoryConsolidatorOptions = {
  /** The agent workspace (`memory/history.jsonl` or `memory/HISTORY.md` live there). */
  readonly workspace: string;
  /** Where the sessions are. */
  readonly store: SessionStore;
  /** Summarises archived turns. */
  readonly model: ChatModel;
  /** The model's context window; ≤ 0 disables token-triggered consolidation. */
  readonly contextWindowTokens: number;
  /** Tokens reserved for the reply. */
  readonly maxOutputTokens: number;
  /** Shrink the prompt to this fraction of the budget (0.1–0.95). @default 0.5 */
  readonly consolidationRatio?: number;
  /** Counts prompt tokens. @default a SimpleTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** The ordinary turn's system prompt. @default a short generic assistant prompt */
  readonly systemPrompt?: SystemPromptSource;
  /** The agent's tool schemas, sent with `toolChoice: 'none'` for prompt-cache reuse. @default none */
  readonly tools?: readonly ToolDefinition[];
  /** Our archive instruction (`{count}` = messages to summarise). @default DEFAULT_ARCHIVE_INSTRUCTION */
  readonly archiveInstruction?: string;
  /** `jsonl` writes memory/history.jsonl; `legacy-markdown` appends to memory/HISTORY.md (the older layout). @default 'jsonl' */
  readonly historyFormat?: 'jsonl' | 'legacy-markdown';
  /** Cap on a model summary entry. @default 8000 */
  readonly maxSummaryChars?: number;
  /** Cap on one raw archive entry; a longer raw archive is split into several entries. @default 16000 */
  readonly maxRawArchiveChars?: number;
  /** Archive rounds per `maybeConsolidate` call (one model request each); `Infinity` = until under target. @default 5 */
  readonly maxRounds?: number;
  /**
   * What an unusable reply (cut, filtered, no finish reason, reasoning only, empty, tool calls) does:
   * `fail` throws and changes nothing, so the turns are asked again next time; `raw-archive` archives
   * them raw as nanobot does. @default 'fail'
   */
  readonly unusableReply?: 'fail' | 'raw-archive';
  /** The clock (history timestamps, idle checks). @default the system clock */
  readonly now?: () => Date;
  /** Receives a line per step of long work (CLI progress). @default none */
  readonly onProgress?: (line: string) => void;
};

/** Defaults of {@link MemoryConsolidatorOptions}. */
export const DEFAULT_MEMORY_CONSOLIDATOR = Object.freeze({
  consolidationRatio: 0.5,
  maxSummaryChars: 8000,
  maxRawArchiveChars: 16_000,
  maxRounds: 5,
  unusableReply: 'fail',
  systemPrompt: 'You are a helpful assistant.',
});

/** Archive bookkeeping leaves the session's recency alone. */
const KEEP_RECENCY = Object.freeze({ preserveUpdatedAt: true });

/** What one archive step did with its messages. */
export type ArchiveOutcome =
  | { readonly kind: 'summary'; readonly text: string }
  | { readonly kind: 'nothing' }
  /**
   * Archived raw (nanobot's fallback): `failure` is set when the model failed transiently (or an
   * unusable reply with `unusableReply: 'raw-archive'`); without it, one request could not hold the
   * turn.
   */
  | {
      readonly kind: 'raw';
      readonly reason: string;
      readonly entries: number;
      readonly failure?: ChatModelError;
    };

/** One archive step: `messages[start:end]` were archived, and the pointer moved to `end`. */
export type ConsolidationRound = {
  readonly start: number;
  readonly end: number;
  readonly outcome: ArchiveOutcome;
};

/** The result of {@link MemoryConsolidator.maybeConsolidate}. */
export type ConsolidationResult = {
  /**
   * `degraded`: the model failed transiently, so the last round was raw-archived and the call stopped
   * (the rest waits for the next call).
   */
  readonly status: 'disabled' | 'empty' | 'under-budget' | 'consolidated' | 'no-boundary' | 'degraded';
  readonly budget: number;
  readonly target: number;
  readonly estimateBefore: number;
  readonly estimateAfter: number;
  readonly rounds: readonly ConsolidationRound[];
};

/** The result of {@link MemoryConsolidator.archiveTail}. */
export type TailArchiveResult = {
  /** `empty`: nothing unarchived; `degraded`: a transient failure raw-archived a chunk and stopped. */
  readonly status: 'empty' | 'archived' | 'degraded';
  readonly rounds: readonly ConsolidationRound[];
};

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

  /** @throws ContextError `INVALID_OPTIONS` for a ratio outside 0.1–0.95 or a window with no budget. */
  constructor(options: MemoryConsolidatorOptions) {
    validate(options);
    this.#options = options;
    this.#counter = options.tokenCounter ?? new SimpleTokenCounter();
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
    return budgetOf(this.#options);
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
    const context = await this.#requestContext(record);
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
    const first = await this.#options.store.load(sessionKey, signalOption(signal));
    if (first.messages.length === 0) return { status: 'empty', ...base, estimateBefore: 0, estimateAfter: 0 };
    const estimateBefore = await this.#estimate(first);
    if (estimateBefore <= 0 || estimateBefore < budget) {
      return { status: 'under-budget', ...base, estimateBefore, estimateAfter: estimateBefore };
    }
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
    const context = await this.#requestContext(record);
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
      `${record.key}: archived messages ${start}–${picked.end} (${describeOutcome(outcome)})`,
    );
    return { start, end: picked.end, outcome };
  }

  async #archiveChunk(
    record: SessionRecord,
    step: {
      readonly end: number;
      readonly plan: ReturnType<typeof planArchiveRequest>;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<ArchiveOutcome> {
    const chunk = record.messages.slice(record.lastConsolidated, step.end);
    const raw = async (reason: string, failure?: ChatModelError): Promise<ArchiveOutcome> => {
      const maxChars = this.#options.maxRawArchiveChars ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRawArchiveChars;
      const entries = formatRawArchiveEntries(chunk, maxChars);
      for (const entry of entries) await this.#history.append(entry, { sessionKey: record.key, maxChars });
      return { kind: 'raw', reason, entries: entries.length, ...(failure === undefined ? {} : { failure }) };
    };
    if (step.plan.kind === 'too-large') return raw(step.plan.reason);
    const purpose = `the summary of ${record.key} messages ${record.lastConsolidated}–${step.end}`;
    const unchanged = `Nothing was archived; ${record.key} stays archived up to message ${record.lastConsolidated}.`;
    let text: string;
    try {
      const reply = await this.#generate(step.plan.messages, step.signal);
      text = usableReplyText(reply, { purpose, maxOutputTokens: this.#options.maxOutputTokens });
    } catch (error) {
      const failure = toChatModelError(error);
      if (failure === undefined) throw error;
      if (failure.kind === 'transient') return raw(`the model failed: ${failure.message}`, failure);
      if (failure.kind === 'unusable-reply' && this.#options.unusableReply === 'raw-archive')
        return raw(failure.message, failure);
      throw failure.withNote(unchanged);
    }
    if (text === '(nothing)') return { kind: 'nothing' };
    await this.#history.append(text, {
      sessionKey: record.key,
      maxChars: this.#options.maxSummaryChars ?? DEFAULT_MEMORY_CONSOLIDATOR.maxSummaryChars,
    });
    return { kind: 'summary', text };
  }

  #generate(messages: readonly Message[], signal: AbortSignal | undefined): Promise<ChatResult> {
    const tools = this.#options.tools ?? [];
    return this.#options.model.generate({
      messages,
      ...(tools.length === 0 ? {} : { tools, toolChoice: 'none' as const }),
      maxOutputTokens: this.#options.maxOutputTokens,
      ...signalOption(signal),
    });
  }

  /** What the archive requests of a session share; throws when even an empty chunk cannot fit. */
  async #requestContext(record: SessionRecord): Promise<ArchiveRequestContext> {
    const context: ArchiveRequestContext = {
      messages: record.messages,
      start: record.lastConsolidated,
      system: await this.#systemMessage(record),
      tools: this.#options.tools ?? [],
      instruction: this.#options.archiveInstruction ?? DEFAULT_ARCHIVE_INSTRUCTION,
      budget: this.budget,
      counter: this.#counter,
    };
    const systemTokens = this.#counter.countMessage(context.system);
    const toolTokens = this.#counter.countTools(context.tools);
    const instructionTokens = this.#counter.countMessage(user(context.instruction));
    const fixed = systemTokens + toolTokens + instructionTokens;
    if (fixed >= context.budget) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `An archive request for ${record.key} needs ${fixed} tokens before any message (system prompt ${systemTokens}, tools ${toolTokens}, instruction ${instructionTokens}), but the budget is ${context.budget} (contextWindowTokens ${this.#options.contextWindowTokens} − maxOutputTokens ${this.#options.maxOutputTokens} − 1024). Raise contextWindowTokens (CLI --context-window) or shorten the system prompt. Nothing was archived.`,
      });
    }
    return context;
  }

  #exclusive<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    const { store } = this.#options;
    return this.#queue.run(sessionKey, () =>
      store.withSessionLock === undefined ? task() : store.withSessionLock(sessionKey, task),
    );
  }

  /** nanobot's probe prompt: system prompt + full replay + `[token-probe]` + tool schemas. */
  async #estimate(record: SessionRecord): Promise<number> {
    const history = getHistory(record);
    const messages = [await this.#systemMessage(record), ...history, user('[token-probe]', { id: 'probe' })];
    return this.#counter.countMessages(messages) + this.#counter.countTools(this.#options.tools ?? []);
  }

  async #systemMessage(record: SessionRecord): Promise<Message> {
    const summary = archivedSummaryOf(record);
    const source = this.#options.systemPrompt;
    const text =
      source === undefined
        ? DEFAULT_MEMORY_CONSOLIDATOR.systemPrompt
        : await source({ sessionKey: record.key, ...(summary === undefined ? {} : { summary }) });
    return system(text, { id: 'system-prompt' });
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

function budgetOf(
  options: Pick<MemoryConsolidatorOptions, 'contextWindowTokens' | 'maxOutputTokens'>,
): number {
  return options.contextWindowTokens - options.maxOutputTokens - 1024;
}

function validate(options: MemoryConsolidatorOptions): void {
  const invalid = (message: string): never => {
    throw new ContextError({ code: 'INVALID_OPTIONS', message });
  };
  const ratio = options.consolidationRatio ?? DEFAULT_MEMORY_CONSOLIDATOR.consolidationRatio;
  if (!(ratio >= 0.1 && ratio <= 0.95))
    invalid(`consolidationRatio must be between 0.1 and 0.95, got ${ratio}.`);
  const { contextWindowTokens: window, maxOutputTokens: output } = options;
  if (!Number.isInteger(window)) invalid(`contextWindowTokens must be a whole number, got ${window}.`);
  if (!(Number.isInteger(output) && output >= 0))
    invalid(`maxOutputTokens must be a whole number ≥ 0, got ${output}.`);
  const budget = budgetOf(options);
  if (window > 0 && budget <= 0) {
    invalid(
      `contextWindowTokens ${window} leaves no room to consolidate: ${window} − maxOutputTokens ${output} − 1024 reserved = ${budget} tokens. Raise contextWindowTokens above ${output + 1024} (CLI --context-window), lower maxOutputTokens (CLI --max-output), or use 0 to turn consolidation off.`,
    );
  }
  const rounds = options.maxRounds ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRounds;
  if (!(rounds === Number.POSITIVE_INFINITY || (Number.isInteger(rounds) && rounds >= 1)))
    invalid(`maxRounds must be a whole number ≥ 1 or Infinity, got ${rounds}.`);
}

function isDegraded(round: ConsolidationRound): boolean {
  return round.outcome.kind === 'raw' && round.outcome.failure !== undefined;
}

function describeOutcome(outcome: ArchiveOutcome): string {
  if (outcome.kind !== 'raw') return outcome.kind;
  const entries = `${outcome.entries} raw entr${outcome.entries === 1 ? 'y' : 'ies'}`;
  return outcome.failure === undefined ? `${entries}: ${outcome.reason}` : `${entries}, model unavailable`;
}

function signalOption(signal: AbortSignal | undefined): { readonly signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
