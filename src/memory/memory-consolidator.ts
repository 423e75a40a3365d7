// Over 150 lines: the consolidation loop and the archive request share one set of resolved options.
import { ContextError } from '../core/errors.js';
import { system, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ArchivedSummary } from '../pipeline/build-input.js';
import { getHistory } from '../sessions/get-history.js';
import { KeyedQueue } from '../sessions/keyed-queue.js';
import { archivedSummaryOf, LAST_SUMMARY_KEY } from '../sessions/replay-session.js';
import type { SessionRecord, SessionStore } from '../sessions/session-store.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { DEFAULT_ARCHIVE_INSTRUCTION, renderArchiveInstruction } from './archive-instruction.js';
import { HistoryLog } from './history-log.js';
import { type HistorySink, LegacyHistoryFile } from './history-sink.js';
import { pickConsolidationBoundary } from './pick-consolidation-boundary.js';
import { formatRawArchive } from './raw-archive.js';

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
  /** `jsonl` writes memory/history.jsonl; `legacy-markdown` appends to memory/HISTORY.md (seed 003). @default 'jsonl' */
  readonly historyFormat?: 'jsonl' | 'legacy-markdown';
  /** Cap on a model summary entry. @default 8000 */
  readonly maxSummaryChars?: number;
  /** Cap on a raw archive entry. @default 16000 */
  readonly maxRawArchiveChars?: number;
  /** Rounds per call. @default 5 */
  readonly maxRounds?: number;
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
  systemPrompt: 'You are a helpful assistant.',
});

/** What one archive step produced. */
export type ArchiveOutcome =
  | { readonly kind: 'empty' }
  | { readonly kind: 'summary'; readonly text: string }
  | { readonly kind: 'nothing' }
  | { readonly kind: 'raw'; readonly reason: string };

/** The result of {@link MemoryConsolidator.maybeConsolidate}. */
export type ConsolidationResult = {
  readonly status: 'disabled' | 'empty' | 'under-budget' | 'consolidated' | 'no-boundary';
  readonly budget: number;
  readonly target: number;
  readonly estimateBefore: number;
  readonly estimateAfter: number;
  readonly rounds: readonly { readonly boundary: number; readonly outcome: ArchiveOutcome }[];
};

/**
 * Token-triggered consolidation (nanobot §5.3/§5.4): once the full prompt of a session reaches the
 * budget (`window − maxOutputTokens − 1024`), archives the oldest turns, at most 5 rounds, until it
 * is back under `ratio × budget`. Boundaries fall only on user turns. Each archive request reuses the
 * ordinary turn's system prompt and replay prefix plus our instruction; an error, a truncated
 * (`length`), tool-call or empty reply writes a raw archive instead; `(nothing)` writes nothing. The
 * pointer (`lastConsolidated`) always advances, so nothing is archived twice and nothing is lost (no
 * message is ever deleted). The last summary is kept in the session metadata as `_last_summary`.
 */
export class MemoryConsolidator {
  readonly #options: MemoryConsolidatorOptions;
  readonly #counter: TokenCounter;
  readonly #history: HistorySink;
  readonly #queue = new KeyedQueue();

  constructor(options: MemoryConsolidatorOptions) {
    const ratio = options.consolidationRatio ?? DEFAULT_MEMORY_CONSOLIDATOR.consolidationRatio;
    if (!(ratio >= 0.1 && ratio <= 0.95)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `consolidationRatio must be between 0.1 and 0.95, got ${ratio}.`,
      });
    }
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
    return this.#options.contextWindowTokens - this.#options.maxOutputTokens - 1024;
  }

  /**
   * Consolidates the session if its prompt reached the budget. Serialised per session in this process,
   * and across processes when the store offers `withSessionLock` (JSONL, SQLite, PostgreSQL do).
   */
  maybeConsolidate(
    sessionKey: string,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<ConsolidationResult> {
    return this.#exclusive(sessionKey, () => this.#consolidate(sessionKey, options.signal));
  }

  /**
   * Archives the whole unconsolidated tail of a session (idle compaction, `/new`), storing the summary
   * with `last_active` = the session's pre-archive `updatedAt`. Never deletes messages.
   */
  archiveTail(sessionKey: string, options: { readonly signal?: AbortSignal } = {}): Promise<ArchiveOutcome> {
    return this.#exclusive(sessionKey, async () => {
      const record = await this.#options.store.load(sessionKey, options);
      const end = record.messages.length;
      if (record.lastConsolidated >= end) return { kind: 'empty' };
      const outcome = await this.archive(record, { end, ...options });
      await this.#options.store.setLastConsolidated(sessionKey, end, options);
      if (outcome.kind === 'summary') await this.#saveSummary(record, outcome.text);
      return outcome;
    });
  }

  /**
   * Idle compaction (§5.5): archives the unconsolidated tail of every session quiet for at least
   * `idleAfterMs` (compared with `updatedAt`; unparsable → not idle), skipping `dream:` sessions.
   * Sessions are handled one by one; resolves to what happened to each one that was archived.
   */
  async consolidateIdle(options: {
    readonly idleAfterMs: number;
    readonly now?: Date;
    readonly signal?: AbortSignal;
  }): Promise<readonly { readonly sessionKey: string; readonly outcome: ArchiveOutcome }[]> {
    const now = (options.now ?? (this.#options.now ?? (() => new Date()))()).getTime();
    const results: { sessionKey: string; outcome: ArchiveOutcome }[] = [];
    for (const summary of await this.#options.store.list(options)) {
      if (summary.key.startsWith('dream:') || summary.updatedAt === undefined) continue;
      const updated = Date.parse(summary.updatedAt);
      if (Number.isNaN(updated) || now - updated < options.idleAfterMs) continue;
      const outcome = await this.archiveTail(
        summary.key,
        options.signal === undefined ? {} : { signal: options.signal },
      );
      if (outcome.kind !== 'empty') results.push({ sessionKey: summary.key, outcome });
    }
    return results;
  }

  /** Archives `messages[lastConsolidated:end]` of a loaded session (§5.4); does not move the pointer. */
  async archive(
    record: SessionRecord,
    options: { readonly end: number; readonly signal?: AbortSignal },
  ): Promise<ArchiveOutcome> {
    const chunk = record.messages.slice(record.lastConsolidated, options.end);
    if (chunk.length === 0) return { kind: 'empty' };
    const raw = async (reason: string): Promise<ArchiveOutcome> => {
      const text = formatRawArchive(
        chunk,
        this.#options.maxRawArchiveChars ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRawArchiveChars,
      );
      await this.#history.append(text, { sessionKey: record.key, maxChars: 64_000 });
      this.#options.onProgress?.(`${record.key}: raw archive of ${chunk.length} messages (${reason})`);
      return { kind: 'raw', reason };
    };
    if (this.budget <= 0) return raw('no token budget');
    const prefix = getHistory(
      { messages: record.messages.slice(0, options.end), lastConsolidated: record.lastConsolidated },
      { maxTokens: this.budget, tokenCounter: this.#counter },
    );
    const visible = getHistory({ messages: chunk, lastConsolidated: 0 });
    const tail = prefix.slice(prefix.length - visible.length).map((message) => message.id);
    if (visible.length === 0 || tail.join('\n') !== visible.map((message) => message.id).join('\n')) {
      return raw('the chunk cannot be shown completely in the replay prefix');
    }
    const instruction = renderArchiveInstruction(
      this.#options.archiveInstruction ?? DEFAULT_ARCHIVE_INSTRUCTION,
      visible.length,
    );
    const messages = [
      await this.#systemMessage(record),
      ...prefix,
      user(instruction, { id: 'archive-instruction' }),
    ];
    const tools = this.#options.tools ?? [];
    if (this.#counter.countMessages(messages) + this.#counter.countTools(tools) > this.budget) {
      return raw('the archive request exceeds the budget');
    }
    return this.#ask({
      record,
      messages,
      tools,
      raw,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  async #ask(request: {
    readonly record: SessionRecord;
    readonly messages: readonly Message[];
    readonly tools: readonly ToolDefinition[];
    readonly raw: (reason: string) => Promise<ArchiveOutcome>;
    readonly signal?: AbortSignal;
  }): Promise<ArchiveOutcome> {
    let reply: Awaited<ReturnType<ChatModel['generate']>>;
    try {
      reply = await this.#options.model.generate({
        messages: request.messages,
        ...(request.tools.length === 0 ? {} : { tools: request.tools, toolChoice: 'none' as const }),
        maxOutputTokens: this.#options.maxOutputTokens,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
    } catch (error) {
      if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
      return request.raw(`model call failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (reply.finishReason === 'error' || reply.finishReason === 'length')
      return request.raw(`finish reason ${reply.finishReason}`);
    if (reply.toolCalls.length > 0) return request.raw('the reply made tool calls');
    const text = reply.text.trim();
    if (text === '') return request.raw('the reply was empty');
    if (text === '(nothing)') return { kind: 'nothing' };
    await this.#history.append(text, {
      sessionKey: request.record.key,
      maxChars: this.#options.maxSummaryChars ?? DEFAULT_MEMORY_CONSOLIDATOR.maxSummaryChars,
    });
    return { kind: 'summary', text };
  }

  async #consolidate(sessionKey: string, signal: AbortSignal | undefined): Promise<ConsolidationResult> {
    const budget = this.budget;
    const ratio = this.#options.consolidationRatio ?? DEFAULT_MEMORY_CONSOLIDATOR.consolidationRatio;
    const target = Math.floor(budget * ratio);
    const base = { budget, target, rounds: [] };
    if (this.#options.contextWindowTokens <= 0)
      return { status: 'disabled', ...base, estimateBefore: 0, estimateAfter: 0 };
    const record = await this.#options.store.load(sessionKey, signalOption(signal));
    if (record.messages.length === 0)
      return { status: 'empty', ...base, estimateBefore: 0, estimateAfter: 0 };
    const estimateBefore = await this.#estimate(record);
    if (estimateBefore <= 0 || estimateBefore < budget) {
      return { status: 'under-budget', ...base, estimateBefore, estimateAfter: estimateBefore };
    }
    const run = await this.#rounds({ record, estimate: estimateBefore, target, signal });
    if (run.summary !== undefined) await this.#saveSummary(run.record, run.summary);
    return {
      status: run.rounds.length === 0 ? 'no-boundary' : 'consolidated',
      budget,
      target,
      rounds: run.rounds,
      estimateBefore,
      estimateAfter: await this.#estimate(run.record),
    };
  }

  /** Up to `maxRounds` archive rounds while the estimate is above the target (§5.3 step 5). */
  async #rounds(state: {
    readonly record: SessionRecord;
    readonly estimate: number;
    readonly target: number;
    readonly signal: AbortSignal | undefined;
  }): Promise<{ record: SessionRecord; rounds: ConsolidationResult['rounds']; summary: string | undefined }> {
    let { record, estimate } = state;
    let summary: string | undefined;
    const rounds: { boundary: number; outcome: ArchiveOutcome }[] = [];
    const maxRounds = this.#options.maxRounds ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRounds;
    while (estimate > state.target && rounds.length < maxRounds) {
      const boundary = pickConsolidationBoundary(record.messages, {
        start: record.lastConsolidated,
        tokensNeeded: Math.max(1, estimate - state.target),
        tokenCounter: this.#counter,
      });
      if (boundary === undefined) {
        this.#options.onProgress?.(`${record.key}: no safe boundary (no later user turn)`);
        break;
      }
      const outcome = await this.archive(record, { end: boundary, ...signalOption(state.signal) });
      // The pointer always advances, even after a raw fallback: re-archiving would duplicate entries.
      await this.#options.store.setLastConsolidated(record.key, boundary);
      record = { ...record, lastConsolidated: boundary };
      rounds.push({ boundary, outcome });
      this.#options.onProgress?.(
        `${record.key}: round ${rounds.length} archived up to message ${boundary} (${outcome.kind})`,
      );
      if (outcome.kind === 'summary') summary = outcome.text;
      if (outcome.kind !== 'summary' && outcome.kind !== 'nothing') break;
      estimate = await this.#estimate(record);
    }
    return { record, rounds, summary };
  }

  #exclusive<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    const { store } = this.#options;
    return this.#queue.run(sessionKey, () =>
      store.withSessionLock === undefined ? task() : store.withSessionLock(sessionKey, task),
    );
  }

  /** The probe prompt of §5.3: system prompt + full replay + `[token-probe]` + tool schemas. */
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

  async #saveSummary(record: SessionRecord, text: string): Promise<void> {
    const lastActive = record.updatedAt ?? (this.#options.now ?? (() => new Date()))().toISOString();
    await this.#options.store.setMetadata(record.key, {
      [LAST_SUMMARY_KEY]: { text, last_active: lastActive },
    });
  }
}

function signalOption(signal: AbortSignal | undefined): { readonly signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
