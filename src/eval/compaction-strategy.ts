import {
  type CompactHistoryOptions,
  type CompactHistoryResult,
  compactHistory,
} from '../compaction/compact-history.js';
import { CompactionBreaker } from '../compaction/compaction-breaker.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import { system } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
import { ContextGovernor } from '../filters/context-governor.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { EvalCompactionState, EvalStrategy } from './eval-strategy.js';

/** Options for {@link compactionStrategy}. */
export type CompactionStrategyOptions = {
  /** @default 'ctxloom-compaction' */
  readonly id?: string;
  /** @default 'ctxloom compaction (governor + compactHistory)' */
  readonly label?: string;
  /** Compact when the request would take more than this share of the budget. @default 0.8 */
  readonly triggerRatio?: number;
  /** The share of the budget kept raw at the end of the history (`keepRecent`). @default 0.3 */
  readonly keepRecentRatio?: number;
  /** The share of the budget the pinned messages may take (`pinned.maxTokens`). @default 0.2 */
  readonly pinnedRatio?: number;
  /**
   * Background compaction: when the request passes this share of the budget (below `triggerRatio`),
   * a compaction starts while the turn goes on with the full view; at the next turn its record is
   * swapped in when it still fits the session (the span it summarised is unchanged) and discarded
   * otherwise. Past `triggerRatio` it compacts in the foreground as without it. @default none
   */
  readonly backgroundRatio?: number;
  /** More `compactHistory` options (the summariser, counter, sizes, ids and clock come from the run). @default {} */
  readonly compaction?: Omit<
    CompactHistoryOptions,
    'summarizer' | 'tokenCounter' | 'keepRecent' | 'triggerTokens' | 'generateId' | 'now' | 'signal'
  >;
  /** Whether this is a default configuration the invariants apply to. @default true */
  readonly isDefault?: boolean;
};

const COMPACTION_STRATEGY_OPTION_KEYS = {
  id: true,
  label: true,
  triggerRatio: true,
  keepRecentRatio: true,
  pinnedRatio: true,
  backgroundRatio: true,
  compaction: true,
  isDefault: true,
} as const satisfies OptionKeys<CompactionStrategyOptions>;

/** The output reserve the eval puts in the governor's window (the budget is set with `blockLimit`). */
const OUTPUT_RESERVE_TOKENS = 8_192;

/**
 * ctxloom's compaction over an append-only session, with the governor after it: the raw history is
 * never changed; compaction records are kept beside it and `sessionView` derives what the model sees.
 * At the first call of a turn, when the request would pass `triggerRatio` of the budget, the view is
 * compacted with `compactHistory` (the library's default pins: the user's own messages and the latest
 * request stay verbatim; the summariser gets the rest) and the record is kept; a failed summary
 * changes nothing (a breaker stops retrying every turn). The governor then makes the request legal
 * and fit the budget, as in `governorStrategy`. When the presets gain their `compaction` option, the
 * `compactIfOver` step becomes that option.
 * @throws ContextError `INVALID_OPTIONS` for an unknown option or a ratio outside (0, 1].
 */
export function compactionStrategy(options: CompactionStrategyOptions = {}): EvalStrategy {
  checkOptions(options, { where: 'compactionStrategy options', known: COMPACTION_STRATEGY_OPTION_KEYS });
  const ratios = ratiosOf(options);
  return {
    specificationVersion: 'v1',
    id: options.id ?? 'ctxloom-compaction',
    label: options.label ?? 'ctxloom compaction (governor + compactHistory)',
    usesSummariser: true,
    isDefault: options.isDefault ?? true,
    anthropicCache: 'planned',
    async start(setup) {
      const { summariser, tokenCounter, budgetTokens } = setup;
      if (summariser === undefined)
        throw new ContextError({
          code: 'INVALID_OPTIONS',
          message: 'compactionStrategy needs a summariser: run it with usesSummariser (runEval does).',
        });
      const governor = new ContextGovernor({
        contextWindowTokens: budgetTokens + OUTPUT_RESERVE_TOKENS + 1_024,
        maxOutputTokens: OUTPUT_RESERVE_TOKENS,
        blockLimit: budgetTokens,
        tokenCounter,
      });
      const prompt = system(setup.systemPrompt, { id: 'eval-system' });
      const fixedTokens = tokenCounter.countMessage(prompt) + tokenCounter.countTools(setup.tools);
      const state = new CompactionState();
      const breaker = new CompactionBreaker();
      let view: readonly Message[] = [];
      let compacted = new Set<string>();
      return {
        async messagesFor(call) {
          if (call.step === 0) {
            compacted = new Set();
            state.rewindTo(call.history);
            view = await compactIfOver(state, {
              history: call.history,
              current: [call.user],
              triggerTokens: Math.floor(budgetTokens * ratios.trigger) - fixedTokens,
              ...(ratios.background === undefined
                ? {}
                : { backgroundTokens: Math.floor(budgetTokens * ratios.background) - fixedTokens }),
              compaction: {
                ...options.compaction,
                summarizer: summariser,
                tokenCounter,
                keepRecent: Math.floor(budgetTokens * ratios.keepRecent),
                pinned: {
                  maxTokens: Math.floor(budgetTokens * ratios.pinned),
                  ...options.compaction?.pinned,
                },
                trigger: 'auto',
                breaker,
                generateId: () => `cmp-${call.turn}`,
                now: () => new Date(call.turn * 60_000),
                ...(setup.signal === undefined ? {} : { signal: setup.signal }),
              },
              counter: tokenCounter,
            });
          }
          const messages = [prompt, ...view, call.user, ...call.inflight];
          const result = await governor.prepareForModel(messages, {
            inflightStartIndex: messages.length - call.inflight.length,
            compactedToolCallIds: compacted,
            tools: setup.tools,
            ...(setup.signal === undefined ? {} : { signal: setup.signal }),
          });
          return result.messages;
        },
        compactions: () => state.snapshot(),
      };
    },
  };
}

function ratiosOf(options: CompactionStrategyOptions): {
  readonly trigger: number;
  readonly keepRecent: number;
  readonly pinned: number;
  readonly background?: number;
} {
  const ratios = {
    trigger: options.triggerRatio ?? 0.8,
    keepRecent: options.keepRecentRatio ?? 0.3,
    pinned: options.pinnedRatio ?? 0.2,
    ...(options.backgroundRatio === undefined ? {} : { background: options.backgroundRatio }),
  };
  if (ratios.background !== undefined && !(ratios.background < ratios.trigger))
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `compactionStrategy: backgroundRatio (${ratios.background}) must be under triggerRatio (${ratios.trigger}).`,
    });
  for (const [name, value] of Object.entries(ratios))
    if (!(value > 0 && value <= 1))
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `compactionStrategy: ${name}Ratio must be in (0, 1], got ${value}.`,
      });
  return ratios;
}

/** The records kept beside the append-only history, and the attempts that failed. */
class CompactionState {
  #records: CompactionRecord[] = [];
  #failures = 0;
  #failuresChangingHistory = 0;
  #discarded = 0;
  /** A background compaction started at an earlier turn, with the records it was started over. */
  pending: Promise<CompactHistoryResult> | undefined;
  #history: readonly Message[] = [];

  get records(): readonly CompactionRecord[] {
    return this.#records;
  }

  /** After a rewind (the history cut back), the records that no longer fit are dropped, newest first. */
  rewindTo(history: readonly Message[]): void {
    const isCut = history.length < this.#history.length;
    this.#history = history;
    if (!isCut) return;
    while (this.#records.length > 0 && validateCompactionLineage(history, this.#records).length > 0)
      this.#records = this.#records.slice(0, -1);
  }

  add(record: CompactionRecord): void {
    this.#records = [...this.#records, record];
  }

  /**
   * Swaps in a background compaction's record when it still fits the session (its span unchanged),
   * else discards it.
   */
  settle(result: CompactHistoryResult, history: readonly Message[]): void {
    if (result.record === undefined) {
      if (result.reason === 'summarizer-failed') this.failed({ isUnchanged: true });
      return;
    }
    if (validateCompactionLineage(history, [...this.#records, result.record]).length === 0)
      this.add(result.record);
    else this.#discarded += 1;
  }

  failed(run: { readonly isUnchanged: boolean }): void {
    this.#failures += 1;
    if (!run.isUnchanged) this.#failuresChangingHistory += 1;
  }

  snapshot(): EvalCompactionState {
    return {
      records: this.#records,
      failedAttempts: this.#failures,
      failedAttemptsThatChanged: this.#failuresChangingHistory,
      discardedBackgroundCompactions: this.#discarded,
    };
  }
}

/**
 * The view of the session, compacted first when the request would pass the trigger. This step is what
 * the presets' `compaction` option will do; the strategy keeps it in one place so the swap is one line.
 */
async function compactIfOver(
  state: CompactionState,
  run: {
    readonly history: readonly Message[];
    readonly current: readonly Message[];
    readonly triggerTokens: number;
    /** Start a background compaction past this many tokens. */
    readonly backgroundTokens?: number;
    readonly compaction: CompactHistoryOptions;
    readonly counter: TokenCounter;
  },
): Promise<readonly Message[]> {
  const pending = state.pending;
  state.pending = undefined;
  if (pending !== undefined) state.settle(await pending, run.history);
  const view = sessionView(run.history, state.records);
  const tokens = run.counter.countMessages([...view, ...run.current]);
  if (tokens <= run.triggerTokens) {
    if (run.backgroundTokens !== undefined && tokens > run.backgroundTokens)
      state.pending = compactHistory(view, { ...run.compaction, trigger: 'background' });
    // Awaited at the next turn; a run that ends first must not leave an unhandled rejection behind.
    state.pending?.catch(() => undefined);
    return view;
  }
  const records = state.records;
  const result = await compactHistory(view, run.compaction);
  if (result.record === undefined) {
    if (result.reason === 'summarizer-failed')
      state.failed({ isUnchanged: result.messages === view && state.records === records });
    return result.messages;
  }
  state.add(result.record);
  return result.messages;
}
