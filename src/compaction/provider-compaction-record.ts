import { viewId } from '../core/apply-compactions.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import {
  COMPACTION_DEPTH_KEY,
  COMPACTION_ID_KEY,
  type CompactionRecord,
  type CompactionTrigger,
} from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
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
import { type ProviderCompactionFormat, readProviderCompaction } from './read-provider-compaction.js';
import { runLineage } from './run-lineage.js';

/** Options for {@link providerCompactionRecord}. */
export type ProviderCompactionRecordOptions = {
  /** The wire format of `response`: `anthropic` (Messages API) or `openai-responses`. */
  readonly format: ProviderCompactionFormat;
  /**
   * The provider's response as it came back (JSON or the SDK's object): an Anthropic Messages response
   * (`content`), an OpenAI Responses response (`output`) or a `/responses/compact` result.
   */
  readonly response: { readonly [key: string]: unknown };
  /**
   * The messages the request carried, as ctxloom built them (the session view): the block stands for
   * all of them after the leading system messages. Their ids must be in the session (append the
   * turn's messages before the record).
   */
  readonly messages: readonly Message[];
  /** What is re-injected verbatim right after the block (see {@link PinnedContextOptions}). */
  readonly pinned?: PinnedContextOptions;
  /** Counts the record's tokens before and after. @default new SimpleTokenCounter() */
  readonly tokenCounter?: TokenCounter;
  /** What started it. @default 'auto' */
  readonly trigger?: CompactionTrigger;
  /** Makes the record's id. @default `pcmp-<time>-<messages>` */
  readonly generateId?: () => string;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
};

/** The keys of {@link ProviderCompactionRecordOptions}. */
export const PROVIDER_COMPACTION_RECORD_OPTION_KEYS = {
  format: true,
  response: true,
  messages: true,
  pinned: true,
  tokenCounter: true,
  trigger: true,
  generateId: true,
  now: true,
} as const satisfies OptionKeys<ProviderCompactionRecordOptions>;

/** Why {@link providerCompactionRecord} made no record. */
export type ProviderCompactionSkipReason = 'no-compaction' | 'compaction-failed' | 'server-held-history';

/** What {@link providerCompactionRecord} returns. */
export type ProviderCompactionResult = {
  /** The `provider` record to append (`appendCompaction`), or `undefined` with the reason. */
  readonly record: CompactionRecord | undefined;
  readonly reason?: ProviderCompactionSkipReason;
  /** Why, in a sentence. */
  readonly detail?: string;
  /**
   * The rest of the response (the model's reply, without the compaction block or item) as messages:
   * append them to the session after the record.
   */
  readonly reply: readonly Message[];
  /** The ids re-injected after the block, and the pins given up to the cap. */
  readonly pins: {
    readonly ids: readonly string[];
    readonly tokens: number;
    readonly dropped: readonly string[];
  };
};

/**
 * Turns a provider's own compaction (an Anthropic `compaction` block from threshold or on-demand
 * compaction, an OpenAI Responses `compaction` item from `context_management` or `/responses/compact`)
 * into a compaction record of kind `provider`: it `replaces` every message the request carried after
 * the leading system messages, its summary is an assistant message holding the block or item whole
 * as a provider part (`providerPayload` holds it too), so `sessionView` replays it first and byte for
 * byte and the adapters send it unchanged; pinned messages (the latest user request, messages marked
 * pinned, named tools' latest results; for `/responses/compact` also every user message, which the
 * endpoint keeps verbatim) follow it. Makes no record, and says why, when the response holds no
 * compaction, only a failed one (`content: null`), or continued history the server holds
 * (`previous_response_id`, a conversation, a thread): that history is never pruned.
 * @throws ContextError `INVALID_INPUT` when the response is not one of the shapes above, or the
 * `/responses/compact` output kept a different number of user messages than `messages` hold.
 */
export function providerCompactionRecord(options: ProviderCompactionRecordOptions): ProviderCompactionResult {
  checkOptions(options, {
    where: 'providerCompactionRecord options',
    known: PROVIDER_COMPACTION_RECORD_OPTION_KEYS,
    nested: { pinned: { known: PINNED_CONTEXT_OPTION_KEYS } },
  });
  const now = options.now ?? (() => new Date());
  const id = options.generateId?.() ?? `pcmp-${now().getTime().toString(36)}-${options.messages.length}`;
  let replies = 0;
  const read = readProviderCompaction(options.format, {
    response: options.response,
    generateId: () => {
      replies += 1;
      return `${id}-reply-${replies}`;
    },
  });
  const none = { ids: [], tokens: 0, dropped: [] };
  const skip = (reason: ProviderCompactionSkipReason, detail: string): ProviderCompactionResult => ({
    record: undefined,
    reason,
    detail,
    reply: read.reply,
    pins: none,
  });
  if (read.serverHeld !== undefined)
    return skip(
      'server-held-history',
      `${read.serverHeld}: the server holds that history, so ctxloom records and prunes nothing under it.`,
    );
  const payload = read.payload;
  if (payload === undefined) return skip('no-compaction', 'the response holds no compaction block or item.');
  if (options.format === 'anthropic' && payload['content'] === null)
    return skip(
      'compaction-failed',
      'the server could not compact (its compaction block has content null, a no-op); the history is unchanged.',
    );
  const counter = options.tokenCounter ?? new SimpleTokenCounter();
  const run = runOf(options.messages, read.keptUserMessages);
  const pins = pinsOf(run.units, { ...options, counter, keepUsers: read.keptUserMessages !== undefined });
  const pinned = new Set(pins.kept.map((pin) => pin.unit));
  const summarised = run.units.filter((unit) => !pinned.has(unit)).flatMap((unit) => unit.messages);
  if (summarised.length === 0)
    throw new ContextError({
      code: 'INVALID_INPUT',
      message:
        'The messages given hold nothing the compaction could stand for (only system messages or pins); pass the messages the request was built from.',
    });
  const record = recordOf({ id, payload, read, summarised, pins: pins.kept, run, counter, now, options });
  const pinnedMessages = pins.kept.flatMap((pin) => pin.unit.messages);
  return {
    record,
    reply: read.reply,
    pins: {
      ids: pinnedMessages.map(viewId),
      tokens: pins.kept.reduce((sum, pin) => sum + pin.tokens, 0),
      dropped: pins.dropped.flatMap((pin) => pin.unit.messages.map(viewId)),
    },
  };
}

/** The units after the leading system messages, checked against the users `/responses/compact` kept. */
function runOf(
  messages: readonly Message[],
  keptUsers: number | undefined,
): { readonly units: readonly MessageUnit[]; readonly messages: readonly Message[] } {
  const units = groupTransactions(messages);
  let first = 0;
  while (first < units.length && units[first]?.messages[0]?.role === 'system') first += 1;
  const run = units.slice(first);
  const users = run.filter((unit) => unit.messages[0]?.role === 'user').length;
  if (keptUsers !== undefined && keptUsers !== users)
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `The /responses/compact output keeps ${keptUsers} user messages but the messages given hold ${users}; pass the messages the compact request was built from.`,
    });
  return { units: run, messages: run.flatMap((unit) => unit.messages) };
}

/** ctxloom's pins (capped), plus every user message when the endpoint kept them verbatim (never capped). */
function pinsOf(
  units: readonly MessageUnit[],
  options: ProviderCompactionRecordOptions & { readonly counter: TokenCounter; readonly keepUsers: boolean },
): { readonly kept: readonly PinnedUnit[]; readonly dropped: readonly PinnedUnit[] } {
  const pinned = options.pinned ?? {};
  const found = pinnedUnits(units, { pinned, counter: options.counter });
  const capped = capPins(found, pinned.maxTokens ?? DEFAULT_PINNED_CONTEXT.maxTokens);
  if (!options.keepUsers) return capped;
  const kept = new Set(capped.kept.map((pin) => pin.unit));
  const out = units.flatMap((unit): PinnedUnit[] => {
    const pin = capped.kept.find((candidate) => candidate.unit === unit);
    if (pin !== undefined) return [pin];
    if (kept.has(unit) || unit.messages[0]?.role !== 'user') return [];
    return [{ unit, reason: 'user-request', tokens: options.counter.countMessages(unit.messages) }];
  });
  const chosen = new Set(out.map((pin) => pin.unit));
  return { kept: out, dropped: capped.dropped.filter((pin) => !chosen.has(pin.unit)) };
}

function recordOf(run: {
  readonly id: string;
  readonly payload: JsonObject;
  readonly read: ReturnType<typeof readProviderCompaction>;
  readonly summarised: readonly Message[];
  readonly pins: readonly PinnedUnit[];
  readonly run: { readonly messages: readonly Message[] };
  readonly counter: TokenCounter;
  readonly now: () => Date;
  readonly options: ProviderCompactionRecordOptions;
}): CompactionRecord {
  const { id, payload, summarised, counter } = run;
  const lineage = runLineage(summarised, run.pins);
  const { depth } = lineage;
  const summary: Message = {
    id: `${id}-summary`,
    role: 'assistant',
    content: [{ type: 'provider', format: run.options.format, kind: 'compaction', value: payload }],
    metadata: { [COMPACTION_ID_KEY]: id, [COMPACTION_DEPTH_KEY]: depth },
  };
  return {
    id,
    kind: 'provider',
    ...lineage,
    summary,
    producer: {
      strategy: run.read.strategy,
      ...(run.read.model === undefined ? {} : { model: run.read.model }),
    },
    tokensBefore: counter.countMessages(run.run.messages),
    tokensAfter: counter.countMessage(summary) + run.pins.reduce((sum, pin) => sum + pin.tokens, 0),
    trigger: run.options.trigger ?? 'auto',
    createdAt: run.now().toISOString(),
    providerPayload: payload,
  };
}
