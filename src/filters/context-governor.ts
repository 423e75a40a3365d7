import {
  AUTO_COMPACTION_NESTED_OPTIONS,
  type AutoCompactionOptions,
} from '../compaction/auto-compaction-options.js';
import { AutoCompactor } from '../compaction/auto-compactor.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { checkMessageList, messageListGrowth } from '../pipeline/build-input-validator.js';
import type { BuildResult } from '../pipeline/build-trace.js';
import { ContextPipeline } from '../pipeline/context-pipeline.js';
import type { ContextFilter } from '../pipeline/contracts.js';
import type { RequestObserver } from '../pipeline/request-observer.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { PersistToolResultOptions } from '../workspace/persist-tool-result.js';
import { AutoCompactionFilter } from './auto-compaction-filter.js';
import { BackfillToolResultsFilter } from './backfill-tool-results-filter.js';
import { BudgetGuardFilter } from './budget-guard-filter.js';
import { DropOrphanToolResultsFilter } from './drop-orphan-tool-results-filter.js';
import { GovernedFloor } from './governed-floor.js';
import {
  DEFAULT_COMPACTION_TARGET_RATIO,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  DEFAULT_OFFLOAD_EXEMPT_TOOLS,
  DEFAULT_PLACEHOLDER_TEXTS,
  type InputBudgetOptions,
  resolveInputBudget,
} from './governor-constants.js';
import { GovernorHistoryWindow } from './governor-history-window.js';
import { GOVERNOR_STATE_KEY, type GovernorRunState } from './governor-run-state.js';
import type { ListGrowth } from './history-window-ledger.js';
import { InflightCompactionFilter } from './inflight-compaction-filter.js';
import { SnipHistoryFilter } from './snip-history-filter.js';
import { StripMalformedToolCallsFilter } from './strip-malformed-tool-calls-filter.js';
import { StripPlaceholderAssistantsFilter } from './strip-placeholder-assistants-filter.js';
import {
  TOOL_RESULT_BUDGET_FILTER_NESTED_OPTIONS,
  ToolResultBudgetFilter,
} from './tool-result-budget-filter.js';

/** Options for {@link ContextGovernor}. Every constant of the spec is configurable. */
export type ContextGovernorOptions = InputBudgetOptions & {
  /** Characters a tool result may have before it is offloaded or truncated. @default 16000 */
  readonly maxToolResultChars?: number;
  /** Workspace root for offloaded tool results; without it oversized results are truncated. */
  readonly workspace?: string;
  /** Session folder for offloaded results. @default 'default' */
  readonly sessionKey?: string;
  /** Counts tokens for the budget. @default EstimatingTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** Assistant placeholder texts. @default ['[Previous assistant message omitted.]'] */
  readonly placeholderTexts?: readonly string[];
  /** Backfilled result text. @default '[Tool result unavailable — call was interrupted or lost]' */
  readonly backfillText?: string;
  /** Tools never offloaded or truncated. @default ['read_file'] */
  readonly offloadExemptTools?: readonly string[];
  /** Offload preview (1200 chars), bucket retention (7 days, 32 buckets) and clock. */
  readonly offload?: Pick<
    PersistToolResultOptions,
    'previewChars' | 'maxBucketAgeMs' | 'maxBuckets' | 'clock' | 'dryRun'
  >;
  /** Tools whose in-flight results may be compacted. @default nanobot's list */
  readonly compactableTools?: readonly string[];
  /** @default 500 */
  readonly minCompactChars?: number;
  /** @default 0.85 */
  readonly compactionTargetRatio?: number;
  /** The compaction notice for a tool. @default nanobot's actionable text */
  readonly compactionText?: (toolName: string) => string;
  /**
   * What the governor does when the governed prompt still exceeds the budget (the system prompt,
   * tools and the last user turn alone do not fit), in `prepareForModel` and in its filters alike:
   * `throw` a `BudgetUnsatisfiableError` naming the numbers, or `keep` and return it (nanobot's behaviour: the newest message is
   * always sent; the output reserve and safety buffer may still absorb it).
   * @default 'throw'
   */
  readonly onOverBudget?: 'throw' | 'keep';
  /** Check integrity after every step and record violations in the trace. @default false */
  readonly debug?: boolean;
  /** Clock for stage timings (ms). @default performance.now */
  readonly now?: () => number;
  /** Told about every governed request (a request recorder, tracing). @default none */
  readonly observer?: RequestObserver;
  /**
   * Across the steps of one run (the calls of `prepareForModel` given the same
   * `compactedToolCallIds`), and across runs on a list that extends one governed before (the turns of
   * a session, each run with its own set), leave out before any step the oldest history messages the
   * governor is certain to snip, so that a step costs what is new plus what is kept, not the whole
   * history (see `GovernorHistoryWindow`); the messages returned are the same. Lists are told apart
   * by identity: a step's list is a new array or the last one appended to (see `BuildInput.history`);
   * any other list is governed whole. What was learnt is kept for the last four lists governed (they
   * stay referenced until other lists replace them). `false` governs every message.
   * @default true
   */
  readonly historyWindow?: boolean;
  /**
   * Automatic compaction (see `AutoCompactionOptions`): when the list reaches the trigger, an old run
   * of the history is replaced by a summary before in-flight compaction and snipping, which still
   * guarantee the budget afterwards. The history window is then off (compaction reads the whole
   * history). @default none
   */
  readonly compaction?: AutoCompactionOptions;
};

/** The keys of {@link ContextGovernorOptions}, for `checkOptions`. @internal */
export const CONTEXT_GOVERNOR_OPTION_KEYS = {
  contextWindowTokens: true,
  maxOutputTokens: true,
  blockLimit: true,
  safetyBufferTokens: true,
  maxToolResultChars: true,
  workspace: true,
  sessionKey: true,
  tokenCounter: true,
  placeholderTexts: true,
  backfillText: true,
  offloadExemptTools: true,
  offload: true,
  compactableTools: true,
  minCompactChars: true,
  compactionTargetRatio: true,
  compactionText: true,
  onOverBudget: true,
  debug: true,
  now: true,
  observer: true,
  historyWindow: true,
  compaction: true,
} as const satisfies OptionKeys<ContextGovernorOptions>;

/** The nested option objects of {@link ContextGovernorOptions}. @internal */
export const CONTEXT_GOVERNOR_NESTED_OPTIONS = {
  // The governor hands `offload` to its tool-result step as it is: the same keys.
  offload: TOOL_RESULT_BUDGET_FILTER_NESTED_OPTIONS.offload,
  compaction: AUTO_COMPACTION_NESTED_OPTIONS,
} as const satisfies Record<keyof Pick<ContextGovernorOptions, 'offload' | 'compaction'>, unknown>;

/** Per-call options of {@link ContextGovernor.prepareForModel}. */
export type PrepareForModelOptions = {
  /**
   * Index of the first message produced during this run (the run's initial message count).
   * @default messages.length: nothing is in flight, so history results are never compacted
   */
  readonly inflightStartIndex?: number;
  /** Tool call ids compacted so far in this run; keep one set per run across its steps. @default a new set */
  readonly compactedToolCallIds?: Set<string>;
  /** The tool definitions sent with the request (counted against the budget). */
  readonly tools?: readonly ToolDefinition[];
  /** Cancels the call. */
  readonly signal?: AbortSignal;
};

/**
 * nanobot's context governor: the nine steps that turn the full message list of a tool loop into a
 * model-facing copy that is legal and fits the budget: strip placeholder assistants → strip malformed
 * tool calls → drop orphan results → backfill missing results → tool-result budget (offload) →
 * in-flight compaction → snip history → drop orphans → backfill (with `compaction`, automatic
 * summarising compaction runs before in-flight compaction). The input is never mutated; when no
 * step changes anything, the same array comes back.
 *
 * @example
 * const governor = new ContextGovernor({ contextWindowTokens: 128_000, maxOutputTokens: 8_192, workspace });
 * const compactedToolCallIds = new Set<string>();
 * const { messages } = await governor.prepareForModel(loopMessages, { inflightStartIndex, compactedToolCallIds, tools });
 */
export class ContextGovernor {
  /**
   * The nine steps as filters, for a `ContextBuilder` (per-call state goes in `BuildInput.state`
   * under `GOVERNOR_STATE_KEY`), followed by the over-budget check (`BudgetGuardFilter`) when there
   * is a budget; add
   * `RoleAlternationFilter` after them for strict providers.
   */
  readonly filters: readonly ContextFilter[];
  /** The input budget in tokens (0: compaction and snipping are off). */
  readonly budgetTokens: number;
  /**
   * The automatic compactor when `compaction` is set: its `records(sessionKey)` are the records made
   * (the caller's to store when no `store` was given).
   */
  readonly compactor: AutoCompactor | undefined;
  readonly #pipeline: ContextPipeline;
  /** The floors of the history window, when it is on. */
  readonly #floor: GovernedFloor | undefined;
  /** The history window of each run, found by the run's compacted call ids. */
  readonly #windows = new WeakMap<Set<string>, GovernorHistoryWindow>();
  /**
   * The windows used last, most recent first (at most {@link KEPT_WINDOWS}): a new run (a new turn)
   * takes over the one whose list its own list extends, so it starts from what the last run learnt.
   */
  readonly #recent: GovernorHistoryWindow[] = [];
  readonly #offload: ToolResultBudgetFilter | undefined;
  /**
   * What the window's floors must exceed: the budget, or in-flight compaction's target when it is
   * above the budget (compaction stops at the target, so it must stay over both).
   */
  readonly #windowTokens: number;

  constructor(options: ContextGovernorOptions = {}) {
    checkOptions(options, {
      where: 'new ContextGovernor options',
      known: CONTEXT_GOVERNOR_OPTION_KEYS,
      nested: CONTEXT_GOVERNOR_NESTED_OPTIONS,
    });
    this.budgetTokens = resolveInputBudget(options);
    this.compactor =
      options.compaction === undefined
        ? undefined
        : new AutoCompactor(options.compaction, 'new ContextGovernor options.compaction');
    this.filters = governorFilters(options, { budgetTokens: this.budgetTokens, compactor: this.compactor });
    this.#windowTokens = Math.max(
      this.budgetTokens,
      Math.floor(this.budgetTokens * (options.compactionTargetRatio ?? DEFAULT_COMPACTION_TARGET_RATIO)),
    );
    this.#offload = this.filters.find(
      (filter): filter is ToolResultBudgetFilter => filter instanceof ToolResultBudgetFilter,
    );
    this.#floor =
      options.historyWindow === false || !(this.budgetTokens > 0) || this.compactor !== undefined
        ? undefined
        : new GovernedFloor({
            placeholderTexts: options.placeholderTexts ?? DEFAULT_PLACEHOLDER_TEXTS,
            maxToolResultChars: options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
            exemptTools: options.offloadExemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS,
          });
    this.#pipeline = new ContextPipeline({
      filters: this.filters,
      ...(options.tokenCounter === undefined ? {} : { tokenCounter: options.tokenCounter }),
      ...(options.debug === undefined ? {} : { debug: options.debug }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
    });
  }

  /**
   * Governs `messages` for the next model request and returns the model-facing copy and a trace of
   * the nine steps.
   * @throws ContextError `ABORTED` when the signal is aborted; `BudgetUnsatisfiableError` when the
   * result still exceeds the budget and `onOverBudget` is `throw`.
   */
  async prepareForModel(
    messages: readonly Message[],
    options: PrepareForModelOptions = {},
  ): Promise<BuildResult> {
    checkMessageList(messages, 'prepareForModel');
    const compacted = options.compactedToolCallIds ?? new Set<string>();
    const { governed, start } = this.#window(messages, {
      start: options.inflightStartIndex ?? messages.length,
      compacted,
      ownSet: options.compactedToolCallIds !== undefined,
    });
    const state: GovernorRunState = {
      inflightStartIndex: start,
      inflightMessageIds: new Set(governed.slice(Math.max(0, start)).map((message) => message.id)),
      compactedToolCallIds: compacted,
    };
    const result = await this.#pipeline.transform(governed, {
      state: { [GOVERNOR_STATE_KEY]: state },
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return result;
  }

  /** The messages to govern (see `GovernorHistoryWindow`) and the in-flight start among them. */
  #window(
    messages: readonly Message[],
    run: { readonly start: number; readonly compacted: Set<string>; readonly ownSet: boolean },
  ): { readonly governed: readonly Message[]; readonly start: number } {
    const floor = this.#floor;
    // One set per run: a call without one is a run of its own, with nothing to learn from.
    if (floor === undefined || !run.ownSet) return { governed: messages, start: run.start };
    const offload = this.#offload;
    const growth = messageListGrowth(messages);
    const { window, extended } = this.#windowFor(messages, { compacted: run.compacted, growth });
    const kept = window.window(messages, {
      inflightStartIndex: run.start,
      compacted: run.compacted,
      counter: this.#pipeline.tokenCounter,
      floor,
      rewrittenBefore: (message) => offload?.rewrittenBefore(message, {}),
      ...(growth === undefined ? {} : { growth }),
      ...(extended === undefined ? {} : { extended }),
    });
    return { governed: kept.messages, start: run.start - kept.leftOut };
  }

  /**
   * The window for this call: the run's own while the list only grew since its last step, else the
   * most recent window whose list this one extends (the runs of a session's turns, each with a new
   * set, hand the window on: a turn's first step costs what is new, not the whole history), else the
   * run's own or a new one, which starts again from the list. `extended`: whether the list extends
   * the chosen window's last list, when asked.
   */
  #windowFor(
    messages: readonly Message[],
    run: { readonly compacted: Set<string>; readonly growth: ListGrowth | undefined },
  ): { readonly window: GovernorHistoryWindow; readonly extended?: boolean } {
    const own = this.#windows.get(run.compacted);
    let chosen: GovernorHistoryWindow | undefined;
    let extended: boolean | undefined;
    if (own?.follows(messages, run.growth) === true) {
      chosen = own;
      extended = true;
    } else {
      chosen = this.#recent.find((window) => window !== own && window.follows(messages, run.growth));
      extended = chosen === undefined ? undefined : true;
      chosen ??= own ?? new GovernorHistoryWindow(this.#windowTokens);
    }
    this.#windows.set(run.compacted, chosen);
    const at = this.#recent.indexOf(chosen);
    if (at !== 0) {
      if (at > 0) this.#recent.splice(at, 1);
      this.#recent.unshift(chosen);
      if (this.#recent.length > KEPT_WINDOWS) this.#recent.pop();
    }
    return extended === undefined ? { window: chosen } : { window: chosen, extended };
  }
}

/** Windows (growing lists: sessions) a governor keeps across runs; the least recently used goes. */
const KEPT_WINDOWS = 4;

function governorFilters(
  options: ContextGovernorOptions,
  built: { readonly budgetTokens: number; readonly compactor: AutoCompactor | undefined },
): readonly ContextFilter[] {
  const { budgetTokens } = built;
  const backfill = options.backfillText === undefined ? {} : { text: options.backfillText };
  return [
    new StripPlaceholderAssistantsFilter(
      options.placeholderTexts === undefined ? {} : { placeholders: options.placeholderTexts },
    ),
    new StripMalformedToolCallsFilter(),
    new DropOrphanToolResultsFilter(),
    new BackfillToolResultsFilter(backfill),
    new ToolResultBudgetFilter({
      ...(options.maxToolResultChars === undefined ? {} : { maxToolResultChars: options.maxToolResultChars }),
      ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
      ...(options.sessionKey === undefined ? {} : { sessionKey: options.sessionKey }),
      ...(options.offloadExemptTools === undefined ? {} : { exemptTools: options.offloadExemptTools }),
      ...(options.offload === undefined ? {} : { offload: options.offload }),
    }),
    ...compactionFilters(options, built),
    new InflightCompactionFilter({
      budgetTokens,
      ...(options.compactableTools === undefined ? {} : { compactableTools: options.compactableTools }),
      ...(options.minCompactChars === undefined ? {} : { minCompactChars: options.minCompactChars }),
      ...(options.compactionTargetRatio === undefined ? {} : { targetRatio: options.compactionTargetRatio }),
      ...(options.compactionText === undefined ? {} : { text: options.compactionText }),
    }),
    new SnipHistoryFilter({ budgetTokens }),
    new DropOrphanToolResultsFilter({ id: 'drop-orphan-tool-results-after-snip' }),
    new BackfillToolResultsFilter({ ...backfill, id: 'backfill-tool-results-after-snip' }),
    ...(budgetTokens > 0
      ? [
          new BudgetGuardFilter({
            budgetTokens,
            onOverBudget: options.onOverBudget ?? 'throw',
            hint:
              `the input budget is ${budgetTokens} (context window ${options.contextWindowTokens ?? 0}); raise ` +
              'contextWindowTokens or blockLimit, lower maxOutputTokens, shorten the current turn, or pass ' +
              "onOverBudget: 'keep' to send it anyway",
          }),
        ]
      : []),
  ];
}

/** The automatic compaction step, when the governor has a compactor. */
function compactionFilters(
  options: ContextGovernorOptions,
  built: { readonly budgetTokens: number; readonly compactor: AutoCompactor | undefined },
): readonly ContextFilter[] {
  const { compactor, budgetTokens } = built;
  if (compactor === undefined) return [];
  return [
    new AutoCompactionFilter({
      compactor,
      budgetTokens,
      ...(options.sessionKey === undefined ? {} : { sessionKey: options.sessionKey }),
    }),
  ];
}
