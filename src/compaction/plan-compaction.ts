import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { Message } from '../core/message.js';
import { groupTransactions, type MessageUnit } from '../core/transactions.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import {
  capPins,
  DEFAULT_PINNED_CONTEXT,
  PINNED_CONTEXT_OPTION_KEYS,
  type PinnedContextOptions,
  type PinnedUnit,
  pinnedUnits,
} from './pinned-context.js';

/** Tokens of the newest messages a compaction keeps raw, by default. */
export const DEFAULT_KEEP_RECENT = 8000;

/** What a compaction of a list would replace, worked out without the summariser (see {@link planCompaction}). */
export type CompactionPlan = {
  /** Where the run starts in the list. */
  readonly start: number;
  /** Where it ends (exclusive). */
  readonly end: number;
  /** The run: what is summarised and the pinned units among it. */
  readonly run: readonly Message[];
  /** What the summariser is given. */
  readonly summarised: readonly Message[];
  /** The pinned units of the run that stay verbatim. */
  readonly pins: readonly PinnedUnit[];
  readonly pinnedTokens: number;
  /** Pins given up to the cap (summarised after all). */
  readonly dropped: readonly PinnedUnit[];
};

/** Options for {@link planCompaction}: the part of `compactHistory`'s options that decides the run. */
export type PlanCompactionOptions = {
  /** Tokens of the newest messages kept raw. @default 8000 */
  readonly keepRecent?: number;
  /** What is never summarised. */
  readonly pinned?: PinnedContextOptions;
  /** Counts tokens. @default new SimpleTokenCounter() */
  readonly tokenCounter?: TokenCounter;
};

/** The keys of {@link PlanCompactionOptions}. */
export const PLAN_COMPACTION_OPTION_KEYS = {
  keepRecent: true,
  pinned: true,
  tokenCounter: true,
} as const satisfies OptionKeys<PlanCompactionOptions>;

/**
 * The run a compaction of `messages` would replace: the units after the leading system messages and
 * before the newest `keepRecent` tokens (an unfinished tool transaction is always kept), with the
 * pinned units among them (kept verbatim, capped). `undefined` when nothing would be summarised.
 */
export function planCompaction(
  messages: readonly Message[],
  options: PlanCompactionOptions = {},
): CompactionPlan | undefined {
  checkOptions(options, {
    where: 'planCompaction options',
    known: PLAN_COMPACTION_OPTION_KEYS,
    nested: { pinned: { known: PINNED_CONTEXT_OPTION_KEYS } },
  });
  const counter = options.tokenCounter ?? new SimpleTokenCounter();
  const units = groupTransactions(messages);
  let first = 0;
  while (first < units.length && units[first]?.messages[0]?.role === 'system') first += 1;
  const keepRecent = options.keepRecent ?? DEFAULT_KEEP_RECENT;
  let tail = units.length;
  let kept = 0;
  while (tail > first) {
    const unit = units[tail - 1] as MessageUnit;
    const tokens = counter.countMessages(unit.messages);
    if (kept + tokens > keepRecent && !isUnfinished(unit)) break;
    kept += tokens;
    tail -= 1;
  }
  const runUnits = units.slice(first, tail);
  const pinnedOptions = options.pinned ?? {};
  const allPins = pinnedUnits(units, { pinned: pinnedOptions, counter });
  const inRun = new Set(runUnits);
  const { kept: pins, dropped } = capPins(
    allPins.filter((pin) => inRun.has(pin.unit)),
    pinnedOptions.maxTokens ?? DEFAULT_PINNED_CONTEXT.maxTokens,
  );
  const pinned = new Set(pins.map((pin) => pin.unit));
  const summarised = runUnits.filter((unit) => !pinned.has(unit)).flatMap((unit) => unit.messages);
  if (summarised.length === 0) return undefined;
  const start = runUnits[0]?.start ?? 0;
  const run = runUnits.flatMap((unit) => unit.messages);
  return {
    start,
    end: start + run.length,
    run,
    summarised,
    pins,
    pinnedTokens: pins.reduce((sum, pin) => sum + pin.tokens, 0),
    dropped,
  };
}

/** A transaction still waiting for results: never summarised. */
function isUnfinished(unit: MessageUnit): boolean {
  const first = unit.messages[0];
  return (
    first?.role === 'assistant' &&
    (first.toolCalls?.length ?? 0) > 0 &&
    unit.messages.length <= (first.toolCalls?.length ?? 0)
  );
}
