import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { decision } from '../core/decision.js';
import { BudgetUnsatisfiableError, ContextError } from '../core/errors.js';
import type { Message, Role } from '../core/message.js';
import { describeValue } from '../core/message-schema-check.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { formatCount, pinnedPrefixLength } from './pinned-prefix.js';
import { unitEndAfter, unitStartBefore } from './unit-walk.js';

/** Options for {@link TokenBudgetFilter}. */
export type TokenBudgetFilterOptions = {
  /**
   * The input budget: the whole request, messages (with per-message overhead) plus tool schemas, in
   * tokens. Not the model's output limit (`max_tokens` in the OpenAI and Anthropic APIs).
   */
  readonly maxTokens: number;
  /** Counts tokens. @default the builder's counter (`context.tokenCounter`) */
  readonly tokenCounter?: TokenCounter;
  /** Remove the oldest messages first (`true`) or the newest first (`false`). @default true */
  readonly trimFromStart?: boolean;
  /** Roles whose leading run is the pinned prefix, always kept. @default ['system'] */
  readonly pinnedRoles?: readonly Role[];
};

/** The keys of {@link TokenBudgetFilterOptions}, for `checkOptions`. @internal */
export const TOKEN_BUDGET_FILTER_OPTION_KEYS = {
  maxTokens: true,
  tokenCounter: true,
  trimFromStart: true,
  pinnedRoles: true,
} as const satisfies OptionKeys<TokenBudgetFilterOptions>;

/** Defaults of {@link TokenBudgetFilterOptions}. */
export const DEFAULT_TOKEN_BUDGET_FILTER = Object.freeze({
  trimFromStart: true,
  pinnedRoles: Object.freeze(['system'] as const),
});

/**
 * Fits the messages and the tool schemas (`input.tools`) into `maxTokens`, removing whole
 * transactions (an assistant message with tool calls plus its results) from the oldest end
 * (`trimFromStart: true`) or the newest end (`false`).
 *
 * - The pinned prefix (the leading run of messages whose role is pinned) is always kept.
 * - The current user message (the last message, when its role is `user`) is always kept, in both
 *   directions.
 * - The walk starts at the kept end, finds transaction boundaries lazily and stops at the first
 *   unit that does not fit: only kept messages (plus one unit) are looked at and counted, so a turn
 *   costs O(kept) counts, never O(n²).
 * - Dropped messages (one consecutive run) are reported in one `message-drop` decision by their
 *   range (`messageRange`: first id, last id, count), not id by id; when nothing is dropped the
 *   input array itself is returned.
 *
 * @throws BudgetUnsatisfiableError (`BUDGET_UNSATISFIABLE`) when the pinned prefix plus the tool
 * schemas (plus the current user message) alone exceed `maxTokens`: sending an over-budget request
 * is worse than failing locally.
 * @throws ContextError `INVALID_OPTIONS` when `maxTokens` is not a finite number ≥ 0.
 * @example new TokenBudgetFilter({ maxTokens: 8000, tokenCounter: await TiktokenTokenCounter.create({ model: 'gpt-4o' }) })
 */
export class TokenBudgetFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'token-budget';
  readonly maxTokens: number;
  readonly trimFromStart: boolean;
  readonly pinnedRoles: ReadonlySet<Role>;
  readonly #tokenCounter: TokenCounter | undefined;

  constructor(options: TokenBudgetFilterOptions) {
    checkOptions(options, { where: 'new TokenBudgetFilter options', known: TOKEN_BUDGET_FILTER_OPTION_KEYS });
    if (
      typeof options.maxTokens !== 'number' ||
      !Number.isFinite(options.maxTokens) ||
      options.maxTokens < 0
    ) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `TokenBudgetFilter: maxTokens must be a finite number ≥ 0, got ${describeValue(options.maxTokens)}.`,
        details: { maxTokens: options.maxTokens },
      });
    }
    this.maxTokens = options.maxTokens;
    this.trimFromStart = options.trimFromStart ?? DEFAULT_TOKEN_BUDGET_FILTER.trimFromStart;
    this.pinnedRoles = new Set(options.pinnedRoles ?? DEFAULT_TOKEN_BUDGET_FILTER.pinnedRoles);
    this.#tokenCounter = options.tokenCounter;
  }

  // biome-ignore lint/complexity/useMaxParams: the ContextFilter contract fixes this signature
  apply(messages: readonly Message[], input: BuildInput, context: BuildContext): FilterResult {
    const counter = this.#tokenCounter ?? context.tokenCounter;
    const pinnedEnd = pinnedPrefixLength(messages, this.pinnedRoles);
    let pinnedTokens = 0;
    for (let index = 0; index < pinnedEnd; index += 1) {
      pinnedTokens += counter.countMessage(messages[index] as Message);
    }
    const toolTokens = counter.countTools(input.tools ?? []);
    const fixed = { pinnedTokens, toolTokens, currentTokens: 0 };
    if (pinnedTokens + toolTokens > this.maxTokens) throw this.#unsatisfiable(fixed);

    const last = messages.length > pinnedEnd ? messages[messages.length - 1] : undefined;
    const current = last?.role === 'user' ? last : undefined;
    if (current !== undefined) {
      fixed.currentTokens = counter.countMessage(current);
      if (pinnedTokens + toolTokens + fixed.currentTokens > this.maxTokens) throw this.#unsatisfiable(fixed);
    }
    const tailEnd = current === undefined ? messages.length : messages.length - 1;
    const remaining = this.maxTokens - pinnedTokens - toolTokens - fixed.currentTokens;
    const walk = { messages, start: pinnedEnd, end: tailEnd, budget: remaining, counter };
    const {
      dropStart,
      dropEnd,
      keptTokens: walkedTokens,
    } = this.trimFromStart ? keepNewest(walk) : keepOldest(walk);
    if (dropStart === dropEnd) return { messages, decisions: [] };
    // dropStart < dropEnd ≤ messages.length: both ends are messages of the list.

    const dropped = dropEnd - dropStart;
    const keptTokens = pinnedTokens + toolTokens + fixed.currentTokens + walkedTokens;
    return {
      messages: [...messages.slice(0, dropStart), ...messages.slice(dropEnd)],
      decisions: [
        decision('message-drop', {
          stage: this.id,
          reason:
            `Dropped ${formatCount(dropped)} ${this.trimFromStart ? 'oldest' : 'newest'} messages ` +
            `in whole transactions to fit maxTokens ${formatCount(this.maxTokens)} ` +
            `(kept ${formatCount(keptTokens)} tokens, tool schemas included).`,
          messageIds: [],
          messageRange: {
            firstId: (messages[dropStart] as Message).id,
            lastId: (messages[dropEnd - 1] as Message).id,
            count: dropped,
          },
          tokensAfter: keptTokens,
          details: { maxTokens: this.maxTokens, ...fixed, trimFromStart: this.trimFromStart },
        }),
      ],
    };
  }

  #unsatisfiable(fixed: {
    readonly pinnedTokens: number;
    readonly toolTokens: number;
    readonly currentTokens: number;
  }): BudgetUnsatisfiableError {
    const required = fixed.pinnedTokens + fixed.toolTokens + fixed.currentTokens;
    const current =
      fixed.currentTokens > 0 ? `, the current user message ${formatCount(fixed.currentTokens)}` : '';
    return new BudgetUnsatisfiableError({
      budget: this.maxTokens,
      required,
      pinnedTokens: fixed.pinnedTokens,
      message:
        `The pinned messages need ${formatCount(fixed.pinnedTokens)} tokens, the tool schemas ` +
        `${formatCount(fixed.toolTokens)}${current} (${formatCount(required)} in all), but maxTokens is ` +
        `${formatCount(this.maxTokens)}; raise maxTokens, send fewer or shorter tools, shorten the ` +
        `${fixed.currentTokens > 0 ? 'current message or the ' : ''}pinned messages, or pin fewer roles (pinnedRoles).`,
    });
  }
}

/** The tail to walk (`[start, end)` of `messages`) and the tokens it may use. */
type Walk = {
  readonly messages: readonly Message[];
  readonly start: number;
  readonly end: number;
  readonly budget: number;
  readonly counter: TokenCounter;
};

/** The dropped range `[dropStart, dropEnd)` and the tokens of the kept units. */
type WalkResult = { readonly dropStart: number; readonly dropEnd: number; readonly keptTokens: number };

/** Keeps units from the newest end while they fit; stops at the first that does not. */
function keepNewest(walk: Walk): WalkResult {
  let keptTokens = 0;
  let end = walk.end;
  while (end > walk.start) {
    const start = unitStartBefore(walk.messages, { end, floor: walk.start });
    const cost = rangeTokens(walk, { start, end });
    if (keptTokens + cost > walk.budget) break;
    keptTokens += cost;
    end = start;
  }
  return { dropStart: walk.start, dropEnd: end, keptTokens };
}

/** Keeps units from the oldest end while they fit; stops at the first that does not. */
function keepOldest(walk: Walk): WalkResult {
  let keptTokens = 0;
  let start = walk.start;
  while (start < walk.end) {
    const end = unitEndAfter(walk.messages, { start, limit: walk.end });
    const cost = rangeTokens(walk, { start, end });
    if (keptTokens + cost > walk.budget) break;
    keptTokens += cost;
    start = end;
  }
  return { dropStart: start, dropEnd: walk.end, keptTokens };
}

function rangeTokens(walk: Walk, { start, end }: { readonly start: number; readonly end: number }): number {
  let tokens = 0;
  for (let index = start; index < end; index += 1)
    tokens += walk.counter.countMessage(walk.messages[index] as Message);
  return tokens;
}
