import type { OptionKeys } from '../core/check-options.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { CompactionBreaker } from './compaction-breaker.js';
import { PINNED_CONTEXT_OPTION_KEYS, type PinnedContextOptions } from './pinned-context.js';

/**
 * A size relative to the input budget: a number in `(0, 1]` is a fraction of the budget, a number
 * above 1 is a count of tokens (e.g. `0.8` or `96_000`).
 */
export type BudgetShare = number;

/** What {@link AutoCompactionOptions.onBeforeCompact} is told before a compaction starts. */
export type BeforeCompactInfo = {
  /** The session the compaction is for (`'default'` without a key). */
  readonly sessionKey: string;
  /** `auto` (awaited in the request) or `background` (a job while turns go on). */
  readonly trigger: 'auto' | 'background';
  /** Tokens of the list before compaction. */
  readonly tokens: number;
  /** The input budget and the resolved trigger and target, in tokens. */
  readonly budgetTokens: number;
  readonly triggerTokens: number;
  readonly targetTokens: number;
  /** The ids of the messages (and earlier summaries) the summariser would replace. */
  readonly replaces: readonly string[];
};

/** What {@link AutoCompactionOptions.onBeforeCompact} may answer. */
export type BeforeCompactAnswer =
  | boolean
  | undefined
  | {
      /** More instructions for this compaction, after the configured ones. */
      readonly instructions?: string;
    };

/** What {@link AutoCompactionOptions.onCompacted} is told about a compaction kept. */
export type CompactedInfo = {
  readonly sessionKey: string;
  /** True when the record was appended to `store`; false when the caller must persist it. */
  readonly stored: boolean;
};

/**
 * Automatic compaction (one shape for `forAgent`, `forChat`, `forReact`, the governor, and through
 * them `createPrepareStep` and `ctxloomMiddleware`): when the list the model would see reaches
 * `trigger`, an old run of the history is replaced in place by a summary, down toward `target`,
 * before the budget steps trim anything. Records are appended to `store` when one is given (under its
 * session lock), and the trace names them (`history-compaction` decisions).
 */
export type AutoCompactionOptions = {
  /** The model that writes the summaries (a cheaper one than the agent's is the common case). */
  readonly summarizer: ChatModel;
  /**
   * Compact when the list reaches this size: a fraction of the input budget or tokens. A trigger at
   * or under the target is refused as an option error; one that cannot lie above the floor at run
   * time is reported in the trace (`outcome: 'trigger-below-floor'`), never moved silently. @default 0.8
   */
  readonly trigger?: BudgetShare;
  /**
   * Compact down toward this size: a fraction of the input budget or tokens. Under the floor (the
   * system messages, the pins, `keepRecent` and the summary's cap) it is reported in the trace
   * (`outcome: 'target-below-floor'`) and the floor is used. @default 0.5
   */
  readonly target?: BudgetShare;
  /**
   * A compaction that saves less is discarded (and not tried again until the list grew by as much):
   * a fraction of the input budget or tokens. @default 0.05
   */
  readonly minGain?: BudgetShare;
  /** What is never summarised (see `PinnedContextOptions`). @default { latestUserRequests: 1 } */
  readonly pinned?: PinnedContextOptions;
  /** Extra instructions for the summariser (what to focus on). */
  readonly instructions?: string;
  /**
   * Tokens of the newest history always kept raw (whole tool transactions); more stays raw when the
   * target leaves room. @default a quarter of the target, at most 8000
   */
  readonly keepRecent?: number;
  /** The summary's output cap, in tokens. @default 2000 */
  readonly maxOutputTokens?: number;
  /** How long the summariser may take, in milliseconds. @default 120000 */
  readonly timeoutMs?: number;
  /**
   * Called before each compaction: `false` vetoes it (the trace says so), `{ instructions }` adds to
   * the summariser's instructions for this one.
   */
  readonly onBeforeCompact?: (info: BeforeCompactInfo) => BeforeCompactAnswer | Promise<BeforeCompactAnswer>;
  /** Called with every record kept (already stored when `store` was given). */
  readonly onCompacted?: (record: CompactionRecord, info: CompactedInfo) => void | Promise<void>;
  /**
   * Summarise in the background: from `startAt` (default halfway between target and trigger) a job
   * summarises while turns go on with the full history; a later request swaps exactly the span it
   * summarised when that span is unchanged (else the result is discarded and the trace says so). At
   * `trigger` a running job is awaited: the budget leaves no choice. One job per session, also across
   * processes and servers sharing `store` (a lease in the session's metadata).
   */
  readonly background?: boolean | { readonly startAt?: BudgetShare };
  /**
   * Where records are appended (`appendCompaction`, under the session lock) and the background lease
   * is kept. Without it the compacted view is used for the request and the record is given to
   * `onCompacted` (and kept in memory for later requests of the same session) for the caller to store.
   */
  readonly store?: SessionStore;
  /** The session, when the build input names none. @default the build's `sessionKey`, else 'default' */
  readonly sessionKey?: string;
  /** Opened by repeated failures; while open nothing is tried. @default one per session */
  readonly breaker?: CompactionBreaker;
  /** How long a lease on the session's compaction lasts, in milliseconds. @default timeoutMs + 60000 */
  readonly leaseMs?: number;
  /** Makes record ids and the lease owner's id. @default random ids */
  readonly generateId?: () => string;
  /** The clock (records' times, the breaker, leases). @default () => new Date() */
  readonly now?: () => Date;
};

/** The keys of {@link AutoCompactionOptions}. @internal */
export const AUTO_COMPACTION_OPTION_KEYS = {
  summarizer: true,
  trigger: true,
  target: true,
  minGain: true,
  pinned: true,
  instructions: true,
  keepRecent: true,
  maxOutputTokens: true,
  timeoutMs: true,
  onBeforeCompact: true,
  onCompacted: true,
  background: true,
  store: true,
  sessionKey: true,
  breaker: true,
  leaseMs: true,
  generateId: true,
  now: true,
} as const satisfies OptionKeys<AutoCompactionOptions>;

/** The nested option objects of {@link AutoCompactionOptions}, for `checkOptions`. @internal */
export const AUTO_COMPACTION_NESTED_OPTIONS = {
  known: AUTO_COMPACTION_OPTION_KEYS,
  nested: {
    pinned: { known: PINNED_CONTEXT_OPTION_KEYS },
    background: { known: { startAt: true } },
  },
} as const;

/** Defaults of {@link AutoCompactionOptions}. */
export const DEFAULT_AUTO_COMPACTION = Object.freeze({
  trigger: 0.8,
  target: 0.5,
  minGain: 0.05,
  maxKeepRecent: 8000,
  maxOutputTokens: 2000,
  timeoutMs: 120_000,
  leaseMarginMs: 60_000,
});

/** The sizes of {@link AutoCompactionOptions} in tokens, for one input budget. */
export type ResolvedCompactionSizes = {
  readonly budgetTokens: number;
  readonly triggerTokens: number;
  readonly targetTokens: number;
  readonly minGainTokens: number;
  /** Where a background job starts; `undefined` without `background`. */
  readonly startAtTokens: number | undefined;
  readonly keepRecent: number;
};

/** A {@link BudgetShare} in tokens. */
export function shareTokens(share: BudgetShare, budgetTokens: number): number {
  return share <= 1 ? Math.floor(share * budgetTokens) : Math.floor(share);
}

/**
 * Checks the values of automatic compaction options (the keys are checked by the entry point):
 * positive sizes, and a trigger above the target (and a background start between them) whenever
 * both are in the same unit, so the mistake shows at construction.
 * @throws ContextError `INVALID_OPTIONS` naming the value and how to fix it.
 */
export function checkAutoCompactionValues(options: AutoCompactionOptions, where: string): void {
  if (typeof options.summarizer?.generate !== 'function')
    fail(
      `${where}.summarizer must be a ChatModel (an object with generate()); pass the model that writes summaries.`,
    );
  const trigger = options.trigger ?? DEFAULT_AUTO_COMPACTION.trigger;
  const target = options.target ?? DEFAULT_AUTO_COMPACTION.target;
  const startAt = typeof options.background === 'object' ? options.background.startAt : undefined;
  checkShares(where, { trigger, target, minGain: options.minGain, 'background.startAt': startAt });
  checkCounts(where, options);
  if (sameUnit(trigger, target) && trigger <= target)
    fail(
      `${where}.trigger (${trigger}) is not above target (${target}); compaction would start again right after it ends. Set the trigger above the target, e.g. trigger 0.8 and target 0.5.`,
    );
  if (startAt !== undefined && sameUnit(startAt, trigger) && startAt >= trigger)
    fail(
      `${where}.background.startAt (${startAt}) is not below trigger (${trigger}); a background job must start before the budget forces a compaction.`,
    );
}

/** Budget shares must be positive finite numbers. */
function checkShares(where: string, shares: Readonly<Record<string, number | undefined>>): void {
  for (const [name, value] of Object.entries(shares))
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      fail(
        `${where}.${name} is ${value}; give a fraction of the input budget in (0, 1] or a count of tokens above 1.`,
      );
}

/** Token counts and durations must be whole numbers ≥ 0. */
function checkCounts(where: string, options: AutoCompactionOptions): void {
  const counts = {
    keepRecent: [options.keepRecent, 'tokens'],
    maxOutputTokens: [options.maxOutputTokens, 'tokens'],
    timeoutMs: [options.timeoutMs, 'milliseconds'],
    leaseMs: [options.leaseMs, 'milliseconds'],
  } as const;
  for (const [name, [value, unit]] of Object.entries(counts))
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      fail(`${where}.${name} is ${value}; give a whole number of ${unit}.`);
}

/** The sizes in tokens for `budgetTokens` (before the run-time floor; see `AutoCompactor`). */
export function resolveCompactionSizes(
  options: AutoCompactionOptions,
  budgetTokens: number,
): ResolvedCompactionSizes {
  const triggerTokens = shareTokens(options.trigger ?? DEFAULT_AUTO_COMPACTION.trigger, budgetTokens);
  const targetTokens = shareTokens(options.target ?? DEFAULT_AUTO_COMPACTION.target, budgetTokens);
  const background = options.background;
  const startAt =
    background === undefined || background === false
      ? undefined
      : typeof background === 'object' && background.startAt !== undefined
        ? shareTokens(background.startAt, budgetTokens)
        : Math.floor((triggerTokens + targetTokens) / 2);
  return {
    budgetTokens,
    triggerTokens,
    targetTokens,
    minGainTokens: shareTokens(options.minGain ?? DEFAULT_AUTO_COMPACTION.minGain, budgetTokens),
    startAtTokens: startAt,
    keepRecent:
      options.keepRecent ?? Math.min(DEFAULT_AUTO_COMPACTION.maxKeepRecent, Math.floor(targetTokens / 4)),
  };
}

function sameUnit(left: number, right: number): boolean {
  return left <= 1 === right <= 1;
}

function fail(message: string): never {
  throw new ContextError({ code: 'INVALID_OPTIONS', message });
}
