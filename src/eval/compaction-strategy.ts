import {
  AUTO_COMPACTION_NESTED_OPTIONS,
  type AutoCompactionOptions,
} from '../compaction/auto-compaction-options.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { Decision } from '../core/decision.js';
import { ContextError } from '../core/errors.js';
import { system } from '../core/factories.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { carryDeferredTools } from './carry-deferred-tools.js';
import type { EvalCompactionState, EvalStrategy } from './eval-strategy.js';

/** Options for {@link compactionStrategy}. */
export type CompactionStrategyOptions = {
  /** @default 'ctxloom-compaction' */
  readonly id?: string;
  /** @default 'ctxloom compaction (governor with `compaction`)' */
  readonly label?: string;
  /**
   * More options of the governor's automatic compaction (`trigger`, `target`, `pinned`,
   * `background`…); the summariser, ids and clock come from the run. @default {} (the library's defaults)
   */
  readonly compaction?: Omit<
    AutoCompactionOptions,
    'summarizer' | 'generateId' | 'now' | 'store' | 'sessionKey' | 'onCompacted' | 'breaker'
  >;
  /** Whether this is a default configuration the invariants apply to. @default true */
  readonly isDefault?: boolean;
};

const COMPACTION_STRATEGY_OPTION_KEYS = {
  id: true,
  label: true,
  compaction: true,
  isDefault: true,
} as const satisfies OptionKeys<CompactionStrategyOptions>;

/** The library's compaction keys the strategy takes (the run gives the summariser, ids, clock…). */
const STRATEGY_COMPACTION_KEYS = {
  trigger: true,
  target: true,
  minGain: true,
  pinned: true,
  instructions: true,
  keepRecent: true,
  maxOutputTokens: true,
  timeoutMs: true,
  onBeforeCompact: true,
  background: true,
  leaseMs: true,
} as const satisfies OptionKeys<NonNullable<CompactionStrategyOptions['compaction']>>;

/** The output reserve the eval puts in the governor's window (the budget is set with `blockLimit`). */
const OUTPUT_RESERVE_TOKENS = 8_192;

/**
 * What users get with a summariser: `new ContextGovernor({ compaction: { summarizer } })` (the
 * library's automatic compaction, its defaults unless `compaction` says otherwise) over the system
 * prompt, the append-only history, the user message and the turn's in-flight messages, as in
 * `governorStrategy`. The history given is never changed: the governor's compactor keeps its records
 * (without a store, in memory) and applies them to each request; the harness grades lineage and
 * coverage with `compactor.records()`. Failed summaries and discarded background jobs are read from
 * the trace's `history-compaction` decisions. With `setup.deferredTools`, the loaded deferred tools
 * are kept loaded with `carryLoadedTools` after the governor.
 * @throws ContextError `INVALID_OPTIONS` for an unknown option (the values of `compaction` are
 * checked by the governor when a run starts).
 */
export function compactionStrategy(options: CompactionStrategyOptions = {}): EvalStrategy {
  checkOptions(options, {
    where: 'compactionStrategy options',
    known: COMPACTION_STRATEGY_OPTION_KEYS,
    nested: { compaction: { ...AUTO_COMPACTION_NESTED_OPTIONS, known: STRATEGY_COMPACTION_KEYS } },
  });
  return {
    specificationVersion: 'v1',
    id: options.id ?? 'ctxloom-compaction',
    label: options.label ?? 'ctxloom compaction (governor with `compaction`)',
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
      let turn = 0;
      let made = 0;
      const governor = new ContextGovernor({
        contextWindowTokens: budgetTokens + OUTPUT_RESERVE_TOKENS + 1_024,
        maxOutputTokens: OUTPUT_RESERVE_TOKENS,
        blockLimit: budgetTokens,
        tokenCounter,
        compaction: {
          ...options.compaction,
          summarizer: summariser,
          generateId: () => `cmp-${turn}-${made++}`,
          now: () => new Date(turn * 60_000),
        },
      });
      const compactor = governor.compactor;
      if (compactor === undefined)
        throw new ContextError({
          code: 'UNEXPECTED',
          message: 'compactionStrategy: the governor given `compaction` has no compactor.',
        });
      const prompt = system(setup.systemPrompt, { id: 'eval-system' });
      const tally: Tally = { failed: 0, failedChanged: 0, discarded: 0 };
      let compacted = new Set<string>();
      return {
        async messagesFor(call) {
          turn = call.turn;
          if (call.step === 0) compacted = new Set();
          const messages = [prompt, ...call.history, call.user, ...call.inflight];
          const before = compactor.records();
          const result = await governor.prepareForModel(messages, {
            inflightStartIndex: messages.length - call.inflight.length,
            compactedToolCallIds: compacted,
            tools: setup.tools,
            ...(setup.signal === undefined ? {} : { signal: setup.signal }),
          });
          tallyOutcomes(tally, {
            decisions: traceDecisions(result.trace),
            before,
            after: compactor.records(),
          });
          return carryDeferredTools(result.messages, { setup, call, records: compactor.records() });
        },
        compactions: (): EvalCompactionState => ({
          records: compactor.records(),
          failedAttempts: tally.failed,
          failedAttemptsThatChanged: tally.failedChanged,
          discardedBackgroundCompactions: tally.discarded,
        }),
      };
    },
  };
}

/** The failed and discarded compactions of a run, counted from the trace. */
type Tally = { failed: number; failedChanged: number; discarded: number };

/**
 * Counts a call's failed summaries (and those after which a record was added all the same) and its
 * discarded background compactions, from its `history-compaction` decisions.
 */
function tallyOutcomes(
  tally: Tally,
  call: {
    readonly decisions: readonly Decision[];
    readonly before: readonly CompactionRecord[];
    readonly after: readonly CompactionRecord[];
  },
): void {
  for (const decision of call.decisions) {
    if (decision.type !== 'history-compaction') continue;
    const outcome = decision.details?.['outcome'];
    if (outcome === 'summarizer-failed') {
      tally.failed += 1;
      if (call.after.some((record) => !call.before.includes(record))) tally.failedChanged += 1;
    } else if (outcome === 'background-discarded') tally.discarded += 1;
  }
}
