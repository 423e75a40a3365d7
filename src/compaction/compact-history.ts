import { setTimeout as sleep } from 'node:timers/promises';
import {
  COMPACTION_DEPTH_KEY,
  COMPACTION_ID_KEY,
  type CompactionRecord,
  type CompactionTrigger,
} from '../core/compaction-record.js';
import { ContextError, toContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { groupTransactions, type MessageUnit } from '../core/transactions.js';
import type { ChatModel } from '../llm/chat-model.js';
import { usableReplyText } from '../memory/usable-reply-text.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { viewId } from './apply-compactions.js';
import type { CompactionBreaker } from './compaction-breaker.js';
import { DEFAULT_COMPACTION_PROMPT, renderTranscript } from './compaction-prompt.js';
import {
  capPins,
  DEFAULT_PINNED_CONTEXT,
  type PinnedContextOptions,
  type PinnedUnit,
  pinnedUnits,
} from './pinned-context.js';

/** Options for {@link compactHistory}. */
export type CompactHistoryOptions = {
  /** The model that writes the summary (a cheaper one than the agent's is the common case). */
  readonly summarizer: ChatModel;
  /** Tokens of the newest messages kept raw (whole tool transactions). @default 8000 */
  readonly keepRecent?: number;
  /** Extra instructions for the summariser (what to focus on), appended to the default prompt. */
  readonly instructions?: string;
  /** Replaces the default system prompt of the summariser. @default DEFAULT_COMPACTION_PROMPT */
  readonly prompt?: string;
  /** What is never summarised (see {@link PinnedContextOptions}). */
  readonly pinned?: PinnedContextOptions;
  /** Only compact when the list takes at least this many tokens. @default none (a manual call always tries) */
  readonly triggerTokens?: number;
  /** Only keep a compaction that saves at least this many tokens. @default none */
  readonly minGain?: number;
  /** Counts tokens. @default new SimpleTokenCounter() */
  readonly tokenCounter?: TokenCounter;
  /** Opened by repeated failures; while open, nothing is tried. */
  readonly breaker?: CompactionBreaker;
  /** How long the summariser may take, in milliseconds. @default 120000 */
  readonly timeoutMs?: number;
  /** The summary's output cap. @default 2000 */
  readonly maxOutputTokens?: number;
  /** What started it, recorded on the record. @default 'manual' */
  readonly trigger?: CompactionTrigger;
  /** Makes the record's id. @default `cmp-<time>-<count of summaries in the list>` */
  readonly generateId?: () => string;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
};

/** Why {@link compactHistory} made no record. */
export type CompactionSkipReason =
  | 'nothing-to-compact'
  | 'below-trigger'
  | 'insufficient-gain'
  | 'summarizer-failed'
  | 'breaker-open';

/** What {@link compactHistory} returns. */
export type CompactHistoryResult =
  | {
      /** The list with the run replaced by the summary and the pinned messages. */
      readonly messages: readonly Message[];
      readonly record: CompactionRecord;
      readonly reason?: undefined;
      /** The pinned messages moved after the summary, and the pins given up to the cap. */
      readonly pins: {
        readonly ids: readonly string[];
        readonly tokens: number;
        readonly dropped: readonly string[];
      };
    }
  | {
      /** The list given, unchanged (the same array). */
      readonly messages: readonly Message[];
      readonly record: undefined;
      readonly reason: CompactionSkipReason;
      /** Why, in a sentence with the numbers. */
      readonly detail: string;
      /** The summariser's failure, for `summarizer-failed`. */
      readonly error?: ContextError;
    };

/** Defaults of {@link CompactHistoryOptions}. */
export const DEFAULT_COMPACT_HISTORY = Object.freeze({
  keepRecent: 8000,
  timeoutMs: 120_000,
  maxOutputTokens: 2000,
});

/**
 * Replaces an old stretch of the list the model sees (raw messages and earlier summaries) by one
 * summary, in place: the run from after the leading system messages up to the newest `keepRecent`
 * tokens, whole tool transactions only. Pinned messages in the run (the latest user request, messages
 * marked `metadata.pinned`, the latest result of named tools) are not given to the summariser: they
 * follow the summary verbatim. Writes nothing: the caller appends the returned record to the store.
 * A failed, unusable, slow or useless summary changes nothing and says why; it never throws for them.
 * @throws ContextError `ABORTED` when the signal aborts.
 */
export async function compactHistory(
  messages: readonly Message[],
  options: CompactHistoryOptions,
): Promise<CompactHistoryResult> {
  const counter = options.tokenCounter ?? new SimpleTokenCounter();
  const now = options.now ?? (() => new Date());
  const skip = (
    reason: CompactionSkipReason,
    detail: string,
    error?: ContextError,
  ): CompactHistoryResult => ({
    messages,
    record: undefined,
    reason,
    detail,
    ...(error === undefined ? {} : { error }),
  });
  if (options.breaker?.isOpen(now().getTime()) === true)
    return skip(
      'breaker-open',
      `compaction failed ${options.breaker.failures} times in a row; the breaker is open.`,
    );
  const total = counter.countMessages(messages);
  if (options.triggerTokens !== undefined && total < options.triggerTokens)
    return skip(
      'below-trigger',
      `the list takes ${total} tokens, under the trigger of ${options.triggerTokens}.`,
    );
  const plan = planRun(messages, { ...options, counter });
  if (plan === undefined)
    return skip(
      'nothing-to-compact',
      'everything older than the kept recent messages is pinned or there is nothing older.',
    );
  let text: string;
  try {
    text = await summarize(plan.summarised, options);
  } catch (error) {
    const failure = toContextError(error);
    if (failure.code === 'ABORTED' && options.signal?.aborted === true) throw failure;
    options.breaker?.recordFailure(now().getTime());
    return skip('summarizer-failed', `the summariser failed, nothing changed: ${failure.message}`, failure);
  }
  const id = options.generateId?.() ?? `cmp-${now().getTime().toString(36)}-${plan.run.length}`;
  const depth = 1 + Math.max(0, ...plan.summarised.map(depthOf));
  const summary: Message = {
    id: `${id}-summary`,
    role: 'user',
    content: `<conversation-summary>\n${text}\n</conversation-summary>`,
    metadata: { [COMPACTION_ID_KEY]: id, [COMPACTION_DEPTH_KEY]: depth },
  };
  const pinnedMessages = plan.pins.flatMap((pin) => pin.unit.messages);
  const tokensAfter = counter.countMessage(summary) + plan.pinnedTokens;
  const tokensBefore = counter.countMessages(plan.run);
  if (options.minGain !== undefined && tokensBefore - tokensAfter < options.minGain) {
    return skip(
      'insufficient-gain',
      `the summary saves ${tokensBefore - tokensAfter} tokens (${tokensBefore} → ${tokensAfter}), under the minimum gain of ${options.minGain}; nothing changed.`,
    );
  }
  options.breaker?.recordSuccess();
  const replaces = plan.summarised.map(viewId);
  const parents = plan.summarised.flatMap((message) => {
    const record = message.metadata?.[COMPACTION_ID_KEY];
    return typeof record === 'string' ? [record] : [];
  });
  const record: CompactionRecord = {
    id,
    kind: 'summary',
    replaces,
    ...(pinnedMessages.length === 0 ? {} : { pinned: pinnedMessages.map(viewId) }),
    summary,
    depth,
    parents,
    producer: {
      strategy: 'summarize',
      model: options.summarizer.id,
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    },
    tokensBefore,
    tokensAfter,
    trigger: options.trigger ?? 'manual',
    createdAt: now().toISOString(),
  };
  return {
    messages: [...messages.slice(0, plan.start), summary, ...pinnedMessages, ...messages.slice(plan.end)],
    record,
    pins: {
      ids: pinnedMessages.map(viewId),
      tokens: plan.pinnedTokens,
      dropped: plan.dropped.flatMap((pin) => pin.unit.messages.map(viewId)),
    },
  };
}

type Plan = {
  readonly start: number;
  readonly end: number;
  readonly run: readonly Message[];
  readonly summarised: readonly Message[];
  readonly pins: readonly PinnedUnit[];
  readonly pinnedTokens: number;
  readonly dropped: readonly PinnedUnit[];
};

/** The run to replace: after the leading system messages, before the kept recent units. */
function planRun(
  messages: readonly Message[],
  options: CompactHistoryOptions & { readonly counter: TokenCounter },
): Plan | undefined {
  const units = groupTransactions(messages);
  let first = 0;
  while (first < units.length && units[first]?.messages[0]?.role === 'system') first += 1;
  const keepRecent = options.keepRecent ?? DEFAULT_COMPACT_HISTORY.keepRecent;
  let tail = units.length;
  let kept = 0;
  while (tail > first) {
    const unit = units[tail - 1] as MessageUnit;
    const tokens = options.counter.countMessages(unit.messages);
    if (kept + tokens > keepRecent && !isUnfinished(unit)) break;
    kept += tokens;
    tail -= 1;
  }
  const runUnits = units.slice(first, tail);
  const pinnedOptions = options.pinned ?? {};
  const allPins = pinnedUnits(units, { pinned: pinnedOptions, counter: options.counter });
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

/** A summary's depth (carried on its message), 0 for a raw message. */
function depthOf(message: Message): number {
  if (typeof message.metadata?.[COMPACTION_ID_KEY] !== 'string') return 0;
  const depth = message.metadata[COMPACTION_DEPTH_KEY];
  return typeof depth === 'number' ? depth : 1;
}

async function summarize(run: readonly Message[], options: CompactHistoryOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMPACT_HISTORY.timeoutMs;
  const maxOutputTokens = options.maxOutputTokens ?? DEFAULT_COMPACT_HISTORY.maxOutputTokens;
  const prompt = options.prompt ?? DEFAULT_COMPACTION_PROMPT;
  const instructions = options.instructions === undefined ? '' : `\n\nFocus: ${options.instructions}`;
  const timer = new AbortController();
  const signal =
    options.signal === undefined ? timer.signal : AbortSignal.any([options.signal, timer.signal]);
  const request = options.summarizer.generate({
    messages: [
      { id: 'compaction-system', role: 'system', content: `${prompt}${instructions}` },
      { id: 'compaction-transcript', role: 'user', content: renderTranscript(run) },
    ],
    maxOutputTokens,
    signal,
  });
  const timeout = sleep(timeoutMs, undefined, { signal: timer.signal }).then(() => {
    throw new ContextError({
      code: 'SUMMARISER_FAILED',
      message: `The summariser did not answer within ${timeoutMs} ms; raise timeoutMs or use a faster model.`,
    });
  });
  try {
    const reply = await Promise.race([request, timeout]);
    return usableReplyText(reply, { purpose: `the summary of ${run.length} messages`, maxOutputTokens });
  } finally {
    timer.abort();
    timeout.catch(() => undefined);
    request.catch(() => undefined);
  }
}
