import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { codePointLength } from '../core/code-points.js';
import { type Decision, decision } from '../core/decision.js';
import { throwIfAborted } from '../core/errors.js';
import { visitListDelta } from '../core/list-delta.js';
import type { Message } from '../core/message.js';
import { sharedCopy } from '../core/shared-copy.js';
import { truncateText } from '../core/truncate-text.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { PersistToolResultOptions } from '../workspace/persist-tool-result.js';
import {
  type PlannedToolResultOffload,
  planToolResultOffload,
} from '../workspace/plan-tool-result-offload.js';
import {
  type OffloadWriteOutcome,
  ToolResultOffloadWriter,
} from '../workspace/tool-result-offload-writer.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS, DEFAULT_OFFLOAD_EXEMPT_TOOLS } from './governor-constants.js';
import {
  isEmptyResult,
  type NormalizedToolResult,
  normalizeToolResultSync,
} from './normalize-tool-result.js';

/** A tool message as this filter returned it, and the decision that goes with it. */
type Rewritten = { readonly next: Message; readonly decision?: Decision };

/**
 * The last list this filter was given in a session (a copy) and, for each of its messages, what it
 * returned when that is settled (`null`: the message as it is), else `undefined` (decided again).
 */
type LastCall = {
  readonly sessionKey: string;
  readonly messages: readonly Message[];
  readonly settled: readonly (Rewritten | null | undefined)[];
};

/** A tool message waiting for its offload file; `fallback` is used when the write fails. */
type PendingOffload = {
  readonly pending: number;
  readonly message: Message;
  readonly fallback: NormalizedToolResult;
};

/** Options for {@link ToolResultBudgetFilter}. */
export type ToolResultBudgetFilterOptions = {
  /** The stage id. @default 'tool-result-budget' */
  readonly id?: string;
  /** Characters a result may have before it is offloaded or truncated. @default 16000 */
  readonly maxToolResultChars?: number;
  /** Workspace root for offloaded results; without it oversized results are truncated. */
  readonly workspace?: string;
  /** Session folder for offloaded results. @default the build input's `sessionKey`, else 'default' */
  readonly sessionKey?: string;
  /** Tools never offloaded or truncated. @default ['read_file'] */
  readonly exemptTools?: readonly string[];
  /** Offload preview size, bucket retention and clock. */
  readonly offload?: Pick<
    PersistToolResultOptions,
    'previewChars' | 'maxBucketAgeMs' | 'maxBuckets' | 'clock' | 'dryRun'
  >;
};

/** The keys of {@link ToolResultBudgetFilterOptions}, for `checkOptions`. @internal */
export const TOOL_RESULT_BUDGET_FILTER_OPTION_KEYS = {
  id: true,
  maxToolResultChars: true,
  workspace: true,
  sessionKey: true,
  exemptTools: true,
  offload: true,
} as const satisfies OptionKeys<ToolResultBudgetFilterOptions>;

/** The nested option objects of {@link ToolResultBudgetFilterOptions}. @internal */
export const TOOL_RESULT_BUDGET_FILTER_NESTED_OPTIONS = {
  offload: {
    known: {
      previewChars: true,
      maxBucketAgeMs: true,
      maxBuckets: true,
      clock: true,
      dryRun: true,
    } satisfies OptionKeys<NonNullable<ToolResultBudgetFilterOptions['offload']>>,
  },
} as const;

/**
 * Governor step 5: normalises every tool result (history included) with `normalizeToolResult`:
 * empty results get the `({tool} completed with no output)` text, oversized ones are offloaded to
 * the workspace or hard-truncated, `read_file` results are left alone. Every change is a decision
 * (`message-rewrite`, `tool-result-offload`, `message-truncate`).
 *
 * Offloads of one build are written as one batch (see `ToolResultOffloadWriter`): a reference is
 * sent only once its file is complete on disk. The filter remembers, per session, the message it
 * returned for each tool message it rewrote, so a later build of the same history returns the same
 * objects and touches no file; and the last list it was given, so a list derived from that one (the
 * history window moved) is decided only where it changed: a kept message whose outcome is settled
 * (left as it is, or rewritten for good) gets it again without being looked at.
 */
export class ToolResultBudgetFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #options: ToolResultBudgetFilterOptions;
  readonly #writer = new ToolResultOffloadWriter();
  readonly #rewritten = new Map<string, WeakMap<Message, Rewritten>>();
  /** The last call only (of whichever session), so the filter holds one list, not one per session. */
  #lastCall: LastCall | undefined;

  constructor(options: ToolResultBudgetFilterOptions = {}) {
    checkOptions(options, {
      where: 'new ToolResultBudgetFilter options',
      known: TOOL_RESULT_BUDGET_FILTER_OPTION_KEYS,
      nested: TOOL_RESULT_BUDGET_FILTER_NESTED_OPTIONS,
    });
    this.id = options.id ?? 'tool-result-budget';
    this.#options = options;
  }

  async apply(messages: readonly Message[], input: BuildInput, context: BuildContext): Promise<FilterResult> {
    const sessionKey = this.#options.sessionKey ?? input.sessionKey;
    const cache = this.#cacheFor(sessionKey ?? 'default');
    const known = this.#settledFrom(sessionKey ?? 'default', messages);
    const slots = new Array<Rewritten | PendingOffload | undefined>(messages.length);
    // Starts as the outcomes kept from the last call (`null`, the message as it is, is one); each
    // `undefined` is decided here.
    const settled = known;
    const plans: PlannedToolResultOffload[] = [];
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index] as Message; // index is in range
      const kept = settled[index];
      const outcome = kept === undefined ? this.#settledOutcome(message, cache) : kept;
      settled[index] = outcome;
      if (outcome !== undefined) {
        slots[index] = outcome ?? undefined;
        continue;
      }
      throwIfAborted(context.signal);
      const planned = this.#plan(message, { index, sessionKey });
      if ('plan' in planned) {
        slots[index] = { pending: plans.length, message, fallback: planned.fallback };
        plans.push(planned.plan);
      } else slots[index] = this.#rewrite(message, { result: planned.result, context });
    }
    const dryRun = this.#options.offload?.dryRun === true;
    const written = plans.length === 0 ? [] : await this.#writer.write(plans, { dryRun });
    let out: Message[] | undefined;
    const decisions: Decision[] = [];
    let created = false;
    for (let index = 0; index < messages.length; index += 1) {
      const slot = slots[index];
      const message = messages[index] as Message; // index is in range
      let rewritten = slot === undefined || 'next' in slot ? slot : undefined;
      if (slot !== undefined && 'pending' in slot) {
        const outcome = written[slot.pending] as OffloadWriteOutcome; // one outcome per plan
        created ||= outcome.ok && outcome.created;
        const plan = plans[slot.pending] as PlannedToolResultOffload;
        rewritten = this.#rewrite(message, {
          result: this.#written(outcome, { plan, fallback: slot.fallback }),
          context,
        });
        if (outcome.ok && !dryRun) {
          cache.set(message, rewritten);
          settled[index] = rewritten;
        }
      } else if (rewritten !== undefined && settled[index] === undefined) {
        cache.set(message, rewritten);
        settled[index] = rewritten;
      }
      if (rewritten === undefined || rewritten.next === message) continue;
      // A rewrite replaces its message in place: one copy of the list, written over where it changed.
      out ??= messages.slice();
      out[index] = rewritten.next;
      if (rewritten.decision !== undefined) decisions.push(rewritten.decision);
    }
    this.#lastCall = { sessionKey: sessionKey ?? 'default', messages: sharedCopy(messages), settled };
    if (created) await this.#retention(plans[0] as PlannedToolResultOffload, decisions);
    return out === undefined ? { messages, decisions: [] } : { messages: out, decisions };
  }

  /**
   * What this filter returns for `message` for good (`null`: the message as it is; a rewrite it made
   * before), or `undefined` when it must be decided (a result over the limit or empty).
   */
  #settledOutcome(message: Message, cache: WeakMap<Message, Rewritten>): Rewritten | null | undefined {
    if (message.role !== 'tool') return null;
    // A result rewritten before is found by identity first: no scan of its (large) text.
    const rewritten = cache.get(message);
    if (rewritten !== undefined) return rewritten;
    return this.#isUnchanged(message, toolNameOf(message)) ? null : undefined;
  }

  /** What a result's offload gave: its reference (cut to the limit), or the fallback when it failed. */
  #written(
    outcome: OffloadWriteOutcome,
    offload: { readonly plan: PlannedToolResultOffload; readonly fallback: NormalizedToolResult },
  ): NormalizedToolResult {
    if (!outcome.ok) return { ...offload.fallback, offloadError: outcome.error };
    return {
      // nanobot's last step applies to the reference too: a cap smaller than it cuts it.
      content: truncateText(
        outcome.reference,
        this.#options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
      ),
      action: 'offloaded',
      path: outcome.path,
      originalChars: offload.plan.originalChars,
      ...(outcome.isDryRun === true ? { isDryRun: true } : {}),
    };
  }

  /**
   * For each message of `messages`, its settled outcome in the session's last call (the filter keeps
   * the last call only) when it was kept from it.
   */
  #settledFrom(sessionKey: string, messages: readonly Message[]): (Rewritten | null | undefined)[] {
    const known = new Array<Rewritten | null | undefined>(messages.length);
    const last = this.#lastCall;
    if (last?.sessionKey !== sessionKey) return known;
    visitListDelta(
      { before: last.messages, after: messages },
      {
        kept: ({ from, to, length }) => {
          for (let offset = 0; offset < length; offset += 1) known[to + offset] = last.settled[from + offset];
        },
      },
    );
    return known;
  }

  /**
   * The message this filter returned for `message` in an earlier build of the same session, when
   * it rewrote it and the rewrite is settled (a written offload, a notice, a truncation): what it will
   * return for it again. `undefined` for a result it has not rewritten (yet). Lets the agent preset's
   * history window count an offloaded result as what is sent (its reference), not as its text.
   */
  rewrittenBefore(message: Message, input: BuildInput): Message | undefined {
    const sessionKey = this.#options.sessionKey ?? input.sessionKey ?? 'default';
    return this.#rewritten.get(sessionKey)?.get(message)?.next;
  }

  #cacheFor(sessionKey: string): WeakMap<Message, Rewritten> {
    let cache = this.#rewritten.get(sessionKey);
    if (cache === undefined) {
      cache = new WeakMap();
      this.#rewritten.set(sessionKey, cache);
    }
    return cache;
  }

  /** Decides one result synchronously: an offload to write, or the final normalisation. */
  #plan(
    message: Message,
    where: { readonly index: number; readonly sessionKey: string | undefined },
  ):
    | { readonly plan: PlannedToolResultOffload; readonly fallback: NormalizedToolResult }
    | { readonly result: NormalizedToolResult } {
    const maxChars = this.#options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
    const toolCallId =
      message.toolCallId !== undefined && message.toolCallId !== ''
        ? message.toolCallId
        : `tool_${where.index}`;
    const result = normalizeToolResultSync({
      content: message.content,
      toolName: toolNameOf(message),
      maxChars,
      exemptTools: this.#options.exemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS,
    });
    if (result.action !== 'offload-candidate') return { result };
    if (this.#options.workspace !== undefined) {
      const plan = planToolResultOffload({
        workspace: this.#options.workspace,
        toolCallId,
        content: message.content,
        maxChars,
        ...(this.#options.offload?.previewChars === undefined
          ? {}
          : { previewChars: this.#options.offload.previewChars }),
        ...(where.sessionKey === undefined ? {} : { sessionKey: where.sessionKey }),
      });
      if (!('status' in plan)) return { plan, fallback: result.fallback };
    }
    return { result: result.fallback };
  }

  #rewrite(
    message: Message,
    { result, context }: { readonly result: NormalizedToolResult; readonly context: BuildContext },
  ): Rewritten {
    if (result.action === 'unchanged' || result.content === message.content) {
      return { next: message };
    }
    const next: Message = { ...message, content: result.content };
    return {
      next,
      decision: this.#decide(message, { result, tokensAfter: context.tokenCounter.countMessage(next) }),
    };
  }

  async #retention(plan: PlannedToolResultOffload, decisions: Decision[]): Promise<void> {
    const offload = this.#options.offload;
    const outcome = await this.#writer.applyRetention({
      root: plan.root,
      current: plan.bucketName,
      ...(offload?.maxBucketAgeMs === undefined ? {} : { maxAgeMs: offload.maxBucketAgeMs }),
      ...(offload?.maxBuckets === undefined ? {} : { maxBuckets: offload.maxBuckets }),
      now: (offload?.clock ?? (() => new Date()))().getTime(),
    });
    if (outcome.cleanupErrors.length === 0) return;
    const index = decisions.findIndex((entry) => entry.type === 'tool-result-offload');
    const first = decisions[index];
    if (first === undefined) return;
    decisions[index] = { ...first, details: { ...first.details, cleanupErrors: outcome.cleanupErrors } };
  }

  /** The synchronous fast path: a result that is not empty and fits (or is exempt) stays as it is. */
  #isUnchanged(message: Message, toolName: string): boolean {
    if (isEmptyResult(message.content)) return false;
    if ((this.#options.exemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS).includes(toolName)) return true;
    const maxChars = this.#options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
    if (maxChars <= 0) return true;
    const content = message.content;
    // Sizes are code points, as nanobot counts them; UTF-16 length is an upper bound, so most results
    // are decided without scanning their text.
    if (typeof content === 'string')
      return content.length <= maxChars || codePointLength(content) <= maxChars;
    let units = -1;
    let points = -1;
    for (const part of content) {
      if (part.type !== 'text') return true;
      units += part.text.length + 1;
    }
    if (units <= maxChars) return true;
    for (const part of content) if (part.type === 'text') points += codePointLength(part.text) + 1;
    return points <= maxChars;
  }

  #decide(
    message: Message,
    { result, tokensAfter }: { readonly result: NormalizedToolResult; readonly tokensAfter: number },
  ): Decision {
    const base = { stage: this.id, messageIds: [message.id], tokensAfter };
    const callId = message.toolCallId ?? '';
    if (result.action === 'empty') {
      return decision('message-rewrite', { ...base, reason: `empty result of ${callId} marked as such` });
    }
    if (result.action === 'offloaded') {
      return decision('tool-result-offload', {
        ...base,
        reason:
          result.isDryRun === true
            ? `result of ${callId} (${result.originalChars ?? 0} chars) would be saved to a file (dry run: not written)`
            : `result of ${callId} (${result.originalChars ?? 0} chars) saved to a file`,
        details: {
          toolCallId: callId,
          path: result.path,
          originalChars: result.originalChars,
          ...(result.isDryRun === true ? { isDryRun: true } : {}),
          ...(result.cleanupErrors === undefined || result.cleanupErrors.length === 0
            ? {}
            : { cleanupErrors: result.cleanupErrors }),
        },
      });
    }
    return decision('message-truncate', {
      ...base,
      reason:
        result.offloadError === undefined
          ? `result of ${callId} (${result.originalChars ?? 0} chars) truncated: no workspace to offload to`
          : `result of ${callId} truncated because the offload failed: ${result.offloadError}`,
      details: {
        toolCallId: callId,
        originalChars: result.originalChars,
        ...(result.offloadError === undefined ? {} : { offloadError: result.offloadError }),
      },
    });
  }
}

/** The tool a result is from, as nanobot names it (`tool` when the message has no name). */
function toolNameOf(message: Message): string {
  return message.name !== undefined && message.name !== '' ? message.name : 'tool';
}
