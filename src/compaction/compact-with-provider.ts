import { viewId } from '../core/apply-compactions.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { CompactionRecord, CompactionTrigger } from '../core/compaction-record.js';
import { type ContextError, toContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import {
  COMPACT_HISTORY_OPTION_KEYS,
  type CompactHistoryOptions,
  compactHistory,
} from './compact-history.js';
import { PINNED_CONTEXT_OPTION_KEYS, type PinnedContextOptions } from './pinned-context.js';
import { type ProviderCompactionSkipReason, providerCompactionRecord } from './provider-compaction-record.js';
import type { ProviderCompactionFormat } from './read-provider-compaction.js';

/** Options for {@link compactWithProvider}. */
export type CompactWithProviderOptions = {
  /** The wire format of the provider's response. */
  readonly format: ProviderCompactionFormat;
  /**
   * Sends the provider's compaction request for `messages` and returns its response as it came back:
   * e.g. `client.beta.messages.create({ ...toAnthropicMessages(messages), ...anthropicCompactNow() })`
   * or `client.responses.compact({ model, input: toOpenAIResponsesInput(messages).input })`.
   */
  readonly compact: (
    messages: readonly Message[],
    signal: AbortSignal | undefined,
  ) => Promise<{ readonly [key: string]: unknown }>;
  /**
   * Client-side compaction (`compactHistory`'s options) used when the provider cannot: the call
   * fails (a model without compaction, a 4xx or 5xx), or the response holds no usable block. Without
   * it such a failure changes nothing and is returned with its reason.
   */
  readonly fallback?: CompactHistoryOptions;
  /**
   * The `previous_response_id` (or Anthropic thread) the next request continues, if any: the server
   * holds that history, so nothing is compacted or pruned and the call is refused with a reason.
   */
  readonly previousResponseId?: string;
  /** What is re-injected verbatim after the block. */
  readonly pinned?: PinnedContextOptions;
  /** Counts the record's tokens. @default new SimpleTokenCounter() */
  readonly tokenCounter?: TokenCounter;
  /** What started it. @default 'manual' */
  readonly trigger?: CompactionTrigger;
  /** Makes the record's id. */
  readonly generateId?: () => string;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
};

/** The keys of {@link CompactWithProviderOptions}. */
export const COMPACT_WITH_PROVIDER_OPTION_KEYS = {
  format: true,
  compact: true,
  fallback: true,
  previousResponseId: true,
  pinned: true,
  tokenCounter: true,
  trigger: true,
  generateId: true,
  now: true,
  signal: true,
} as const satisfies OptionKeys<CompactWithProviderOptions>;

/** Why {@link compactWithProvider} made no record. */
export type CompactWithProviderSkipReason =
  | ProviderCompactionSkipReason
  | 'provider-failed'
  | 'fallback-failed';

/** What {@link compactWithProvider} returns. */
export type CompactWithProviderResult = {
  /** The list with the record applied (`messages` unchanged, the same array, when there is none). */
  readonly messages: readonly Message[];
  /** The record to append (`appendCompaction`): kind `provider`, or `summary` from the fallback. */
  readonly record: CompactionRecord | undefined;
  /** Who made the record. */
  readonly via: 'provider' | 'client' | undefined;
  readonly reason?: CompactWithProviderSkipReason;
  /** Why there is no record, or why the fallback ran, in a sentence. */
  readonly detail?: string;
  /** The provider's failure, when its call threw. */
  readonly providerError?: ContextError;
  /** The rest of the provider's response as messages (normally none for a compaction request). */
  readonly reply: readonly Message[];
};

/**
 * Compacts with the provider's own compaction, and with ctxloom's summariser when the provider
 * cannot: calls `compact` (the user's SDK call), turns the block or item into a `provider` record
 * with `providerCompactionRecord`, and otherwise, when `fallback` is given, runs `compactHistory`.
 * Refuses, changing nothing, when the conversation continues history the server holds
 * (`previousResponseId`): ctxloom never prunes under it. Writes nothing: append the record.
 * @throws ContextError `ABORTED` when the signal aborts; `INVALID_INPUT` from `providerCompactionRecord`.
 */
export async function compactWithProvider(
  messages: readonly Message[],
  options: CompactWithProviderOptions,
): Promise<CompactWithProviderResult> {
  checkOptions(options, {
    where: 'compactWithProvider options',
    known: COMPACT_WITH_PROVIDER_OPTION_KEYS,
    nested: {
      pinned: { known: PINNED_CONTEXT_OPTION_KEYS },
      fallback: {
        known: COMPACT_HISTORY_OPTION_KEYS,
        nested: { pinned: { known: PINNED_CONTEXT_OPTION_KEYS } },
      },
    },
  });
  const nothing = { messages, record: undefined, via: undefined, reply: [] } as const;
  if (options.previousResponseId !== undefined)
    return {
      ...nothing,
      reason: 'server-held-history',
      detail: `the conversation continues previous_response_id ${options.previousResponseId}: the server holds that history, so ctxloom compacts and prunes nothing under it.`,
    };
  let response: { readonly [key: string]: unknown };
  try {
    response = await options.compact(messages, options.signal);
  } catch (error) {
    const failure = toContextError(error, 'MODEL_REQUEST_FAILED');
    if (failure.code === 'ABORTED' && options.signal?.aborted === true) throw failure;
    return fallback(messages, {
      options,
      why: {
        reason: 'provider-failed',
        detail: `the provider's compaction failed (${failure.message})`,
        error: failure,
      },
    });
  }
  const read = providerCompactionRecord({
    format: options.format,
    response,
    messages,
    trigger: options.trigger ?? 'manual',
    ...pick(options),
  });
  if (read.record === undefined) {
    if (read.reason === 'server-held-history')
      return { ...nothing, reason: read.reason, detail: read.detail ?? '', reply: read.reply };
    return fallback(messages, {
      options,
      why: { reason: read.reason ?? 'no-compaction', detail: read.detail ?? '' },
    });
  }
  const pinned = new Set(read.pins.ids);
  const systems = leadingSystems(messages);
  return {
    messages: [
      ...messages.slice(0, systems),
      read.record.summary as Message,
      ...messages.slice(systems).filter((message) => pinned.has(viewId(message))),
    ],
    record: read.record,
    via: 'provider',
    reply: read.reply,
  };
}

type Why = {
  readonly reason: CompactWithProviderSkipReason;
  readonly detail: string;
  readonly error?: ContextError;
};

async function fallback(
  messages: readonly Message[],
  { options, why }: { readonly options: CompactWithProviderOptions; readonly why: Why },
): Promise<CompactWithProviderResult> {
  const failed = {
    messages,
    record: undefined,
    via: undefined,
    reply: [],
    reason: why.reason,
    detail: `${why.detail}; nothing changed${options.fallback === undefined ? ' (no fallback given)' : ''}.`,
    ...(why.error === undefined ? {} : { providerError: why.error }),
  } as const;
  if (options.fallback === undefined) return failed;
  const result = await compactHistory(messages, {
    trigger: options.trigger ?? 'manual',
    ...pick(options),
    ...options.fallback,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (result.record === undefined)
    return {
      ...failed,
      reason: 'fallback-failed',
      detail: `${why.detail}; the fallback made nothing: ${result.detail}`,
    };
  return {
    messages: result.messages,
    record: result.record,
    via: 'client',
    reason: why.reason,
    detail: `${why.detail}; compacted client-side instead.`,
    ...(why.error === undefined ? {} : { providerError: why.error }),
    reply: [],
  };
}

function pick(options: CompactWithProviderOptions): {
  pinned?: PinnedContextOptions;
  tokenCounter?: TokenCounter;
  generateId?: () => string;
  now?: () => Date;
} {
  return {
    ...(options.pinned === undefined ? {} : { pinned: options.pinned }),
    ...(options.tokenCounter === undefined ? {} : { tokenCounter: options.tokenCounter }),
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
}

function leadingSystems(messages: readonly Message[]): number {
  let count = 0;
  while (messages[count]?.role === 'system') count += 1;
  return count;
}
