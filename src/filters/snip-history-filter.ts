import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { decision } from '../core/decision.js';
import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import { visitListDelta } from '../core/list-delta.js';
import type { Message } from '../core/message.js';
import { withLead } from '../core/with-lead.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { estimatePromptTokens } from './estimate-prompt-tokens.js';

/** Options for {@link SnipHistoryFilter}. */
export type SnipHistoryFilterOptions = {
  /** The stage id. @default 'snip-history' */
  readonly id?: string;
  /** The input budget in tokens; 0 turns the step off (see `resolveInputBudget`). */
  readonly budgetTokens: number;
};

/** The keys of {@link SnipHistoryFilterOptions}, for `checkOptions`. @internal */
export const SNIP_HISTORY_FILTER_OPTION_KEYS = {
  id: true,
  budgetTokens: true,
} as const satisfies OptionKeys<SnipHistoryFilterOptions>;

/**
 * Governor step 7: when the prompt (messages + tool definitions) exceeds the budget, keeps every
 * system message and the newest non-system messages that fit what the system messages and tools
 * leave, walking from the newest (which is always kept, even alone over budget). The kept tail is
 * then made legal: it starts at its first user message (or, when it has none, at the last user
 * message of the whole list, which may exceed the budget), and an illegal tool-result prefix is
 * dropped (`findLegalMessageStart`). Steps 8 and 9 repair pairs the cut broke.
 *
 * Unlike nanobot, system messages keep their positions (nanobot moves them all to the front).
 *
 * The filter keeps the tokens of the non-system messages of its last call by position, so a list
 * derived from that one (the history window moved) reads a kept message's tokens from an array
 * instead of looking it up in the counter's cache; a message the walk reaches for the first time is
 * counted then.
 */
export class SnipHistoryFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #budget: number;
  /** The last call's non-system messages, the tokens of each (`NaN`: not counted) and the counter. */
  #last: NonSystemTokens | undefined;

  constructor(options: SnipHistoryFilterOptions) {
    checkOptions(options, { where: 'new SnipHistoryFilter options', known: SNIP_HISTORY_FILTER_OPTION_KEYS });
    this.id = options.id ?? 'snip-history';
    this.#budget = options.budgetTokens;
  }

  apply(messages: readonly Message[], input: BuildInput, context: BuildContext): FilterResult {
    const budget = this.#budget;
    const counter = context.tokenCounter;
    const tools = input.tools ?? [];
    if (messages.length === 0 || !(budget > 0)) return { messages, decisions: [] };
    const { systemMessages, nonSystem, leadOnly } = splitSystem(messages);
    const fixed = estimatePromptTokens(counter, { messages: systemMessages, tools });
    // Newest first, stopping at the first message that does not fit: what is left out is never counted.
    const known = this.#known(nonSystem, counter);
    const walk = keptStart(known, Math.max(0, budget - fixed));
    if (walk.start === 0 && fixed + walk.used <= budget) return { messages, decisions: [] };
    if (nonSystem.length === 0) return { messages, decisions: [] };
    // The kept non-system messages are a tail of `nonSystem`: those from `from` on.
    const from = legalTailStart(nonSystem, walk.start);
    if (from === 0) return { messages, decisions: [] };
    const dropped = nonSystem.slice(0, from);
    const result = leadOnly
      ? withLead(messages, { skip: from, lead: systemMessages })
      : keepSystemAnd(messages, from);
    const over = fixed + walk.used + walk.next;
    return {
      messages: result,
      decisions: [
        decision('message-drop', {
          stage: this.id,
          reason:
            `prompt of at least ${over} tokens (counted newest first) exceeds the budget of ${budget}; ` +
            `snipped ${dropped.length} older message(s)`,
          messageIds: dropped.map((message) => message.id),
          tokensAfter: fixed + walk.used + tokensBetween(nonSystem, { from, to: walk.start, counter }),
        }),
      ],
    };
  }

  /** `nonSystem` with the tokens known from the last call for the messages it kept from it. */
  #known(nonSystem: readonly Message[], counter: TokenCounter): NonSystemTokens {
    const tokens = new Float64Array(nonSystem.length).fill(Number.NaN);
    const last = this.#last;
    if (last !== undefined && last.counter === counter)
      visitListDelta(
        { before: last.messages, after: nonSystem },
        {
          kept: ({ from, to, length }) => {
            tokens.set(last.tokens.subarray(from, from + length), to);
          },
        },
      );
    const known = { messages: nonSystem, tokens, counter };
    this.#last = known;
    return known;
  }
}

/**
 * The system and the non-system messages of `messages`, in order, and whether every system message
 * comes first (`leadOnly`, as in most lists: then both are slices, one copy each).
 */
function splitSystem(messages: readonly Message[]): {
  readonly systemMessages: readonly Message[];
  readonly nonSystem: readonly Message[];
  readonly leadOnly: boolean;
} {
  let lead = 0;
  while (lead < messages.length && messages[lead]?.role === 'system') lead += 1;
  let later = lead;
  while (later < messages.length && messages[later]?.role !== 'system') later += 1;
  if (later === messages.length)
    return { systemMessages: messages.slice(0, lead), nonSystem: messages.slice(lead), leadOnly: true };
  const systemMessages: Message[] = [];
  const nonSystem: Message[] = [];
  for (const message of messages) (message.role === 'system' ? systemMessages : nonSystem).push(message);
  return { systemMessages, nonSystem, leadOnly: false };
}

/** `messages` with every system message and the non-system ones from the `from`-th on. */
function keepSystemAnd(messages: readonly Message[], from: number): readonly Message[] {
  let seen = 0;
  return messages.filter((message) => message.role === 'system' || seen++ >= from);
}

/** Non-system messages and, by position, the tokens of each one counted so far (`NaN`: not yet). */
type NonSystemTokens = {
  readonly messages: readonly Message[];
  readonly tokens: Float64Array;
  readonly counter: TokenCounter;
};

/**
 * Walks the non-system messages of `known` from the newest and stops at the first one that does not
 * fit in `remaining` (the newest is always kept): the first kept index, the tokens kept, and the cost
 * of the message the walk stopped at (0 when it kept everything).
 */
function keptStart(
  known: NonSystemTokens,
  remaining: number,
): { readonly start: number; readonly used: number; readonly next: number } {
  const { messages: nonSystem, tokens, counter } = known;
  let used = 0;
  let start = nonSystem.length;
  for (let index = nonSystem.length - 1; index >= 0; index -= 1) {
    let cost = tokens[index] as number; // index is in range
    if (Number.isNaN(cost)) {
      cost = counter.countMessage(nonSystem[index] as Message);
      tokens[index] = cost;
    }
    if (start < nonSystem.length && used + cost > remaining) return { start, used, next: cost };
    used += cost;
    start = index;
  }
  return { start, used, next: 0 };
}

/**
 * The tokens of the kept tail (from `from`) minus those the walk kept (from `to`): the few messages
 * the legal start moved over, counted (already known) instead of the whole tail again.
 */
function tokensBetween(
  nonSystem: readonly Message[],
  range: { readonly from: number; readonly to: number; readonly counter: TokenCounter },
): number {
  const low = Math.min(range.from, range.to);
  const high = Math.max(range.from, range.to);
  const between = range.counter.countMessages(nonSystem.slice(low, high));
  return range.from < range.to ? between : -between;
}

/** Where the kept tail of `nonSystem` starts once made legal (see the class comment). */
function legalTailStart(nonSystem: readonly Message[], keptFrom: number): number {
  let start = -1;
  for (let index = keptFrom; index < nonSystem.length; index += 1) {
    if (nonSystem[index]?.role === 'user') {
      start = index;
      break;
    }
  }
  if (start === -1) {
    for (let index = keptFrom - 1; index >= 0; index -= 1) {
      if (nonSystem[index]?.role === 'user') {
        start = index;
        break;
      }
    }
  }
  const tailStart = start === -1 ? keptFrom : start;
  return findLegalMessageStart(nonSystem, tailStart);
}
