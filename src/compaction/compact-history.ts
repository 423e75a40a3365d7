import { setTimeout as sleep } from 'node:timers/promises';
import { viewId } from '../core/apply-compactions.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import {
  COMPACTION_DEPTH_KEY,
  COMPACTION_ID_KEY,
  type CompactionRecord,
  type CompactionTrigger,
} from '../core/compaction-record.js';
import { ContextError, toContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { ChatModel } from '../llm/chat-model.js';
import { usableReplyText } from '../memory/usable-reply-text.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { CompactionBreaker } from './compaction-breaker.js';
import { DEFAULT_COMPACTION_PROMPT, renderTranscript } from './compaction-prompt.js';
import { PINNED_CONTEXT_OPTION_KEYS, type PinnedContextOptions } from './pinned-context.js';
import { type CompactionPlan, DEFAULT_KEEP_RECENT, planCompaction } from './plan-compaction.js';
import { runLineage } from './run-lineage.js';

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
  /**
   * Most characters of one tool output the summariser is shown (the rest is cut with a marker).
   * @default 10000 (OpenHands' `max_event_length`)
   */
  readonly maxToolOutputChars?: number;
  /** What started it, recorded on the record. @default 'manual' */
  readonly trigger?: CompactionTrigger;
  /** Makes the record's id. @default `cmp-<time>-<count of summaries in the list>` */
  readonly generateId?: () => string;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
};

/** The keys of {@link CompactHistoryOptions}. */
export const COMPACT_HISTORY_OPTION_KEYS = {
  summarizer: true,
  keepRecent: true,
  instructions: true,
  prompt: true,
  pinned: true,
  triggerTokens: true,
  minGain: true,
  tokenCounter: true,
  breaker: true,
  timeoutMs: true,
  maxOutputTokens: true,
  maxToolOutputChars: true,
  trigger: true,
  generateId: true,
  now: true,
  signal: true,
} as const satisfies OptionKeys<CompactHistoryOptions>;

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
  keepRecent: DEFAULT_KEEP_RECENT,
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
  checkOptions(options, {
    where: 'compactHistory options',
    known: COMPACT_HISTORY_OPTION_KEYS,
    nested: { pinned: { known: PINNED_CONTEXT_OPTION_KEYS } },
  });
  const counter = options.tokenCounter ?? new SimpleTokenCounter();
  const now = options.now ?? (() => new Date());
  const skip = (reason: CompactionSkipReason, detail: string): CompactHistoryResult => ({
    messages,
    record: undefined,
    reason,
    detail,
  });
  const refusal = refusalOf(messages, { ...options, counter, now });
  if (refusal !== undefined) return skip(refusal.reason, refusal.detail);
  const plan = planCompaction(messages, {
    tokenCounter: counter,
    ...(options.keepRecent === undefined ? {} : { keepRecent: options.keepRecent }),
    ...(options.pinned === undefined ? {} : { pinned: options.pinned }),
  });
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
    return {
      messages,
      record: undefined,
      reason: 'summarizer-failed',
      detail: `the summariser failed, nothing changed: ${failure.message}`,
      error: failure,
    };
  }
  const record = recordOf(plan, { ...options, text, counter, now });
  const saved = record.tokensBefore - record.tokensAfter;
  if (options.minGain !== undefined && saved < options.minGain)
    return skip(
      'insufficient-gain',
      `the summary saves ${saved} tokens (${record.tokensBefore} → ${record.tokensAfter}), under the minimum gain of ${options.minGain}; nothing changed.`,
    );
  options.breaker?.recordSuccess();
  const pinnedMessages = plan.pins.flatMap((pin) => pin.unit.messages);
  return {
    messages: [
      ...messages.slice(0, plan.start),
      record.summary as Message,
      ...pinnedMessages,
      ...messages.slice(plan.end),
    ],
    record,
    pins: {
      ids: pinnedMessages.map(viewId),
      tokens: plan.pinnedTokens,
      dropped: plan.dropped.flatMap((pin) => pin.unit.messages.map(viewId)),
    },
  };
}

/** Why not to try at all: the breaker is open, or the list is under the trigger the caller set. */
function refusalOf(
  messages: readonly Message[],
  options: CompactHistoryOptions & { readonly counter: TokenCounter; readonly now: () => Date },
): { readonly reason: CompactionSkipReason; readonly detail: string } | undefined {
  const { breaker, triggerTokens } = options;
  if (breaker?.isOpen(options.now().getTime()) === true)
    return {
      reason: 'breaker-open',
      detail: `compaction failed ${breaker.failures} times in a row; the breaker is open.`,
    };
  if (triggerTokens === undefined) return undefined;
  const total = options.counter.countMessages(messages);
  return total < triggerTokens
    ? {
        reason: 'below-trigger',
        detail: `the list takes ${total} tokens, under the trigger of ${triggerTokens}.`,
      }
    : undefined;
}

/** The record of a plan summarised as `text`. */
function recordOf(
  plan: CompactionPlan,
  options: CompactHistoryOptions & {
    readonly text: string;
    readonly counter: TokenCounter;
    readonly now: () => Date;
  },
): CompactionRecord & { readonly summary: Message } {
  const id = options.generateId?.() ?? `cmp-${options.now().getTime().toString(36)}-${plan.run.length}`;
  const lineage = runLineage(plan.summarised, plan.pins);
  const { depth } = lineage;
  const summary: Message = {
    id: `${id}-summary`,
    role: 'user',
    content: `<conversation-summary>\n${options.text}\n</conversation-summary>`,
    metadata: { [COMPACTION_ID_KEY]: id, [COMPACTION_DEPTH_KEY]: depth },
  };
  return {
    id,
    kind: 'summary',
    ...lineage,
    summary,
    producer: {
      strategy: 'summarize',
      model: options.summarizer.id,
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    },
    tokensBefore: options.counter.countMessages(plan.run),
    tokensAfter: options.counter.countMessage(summary) + plan.pinnedTokens,
    trigger: options.trigger ?? 'manual',
    createdAt: options.now().toISOString(),
  };
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
      {
        id: 'compaction-transcript',
        role: 'user',
        content: renderTranscript(
          run,
          options.maxToolOutputChars === undefined ? {} : { maxToolOutputChars: options.maxToolOutputChars },
        ),
      },
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
