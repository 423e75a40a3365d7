import type { Message } from '../core/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { GovernedFloor } from './governed-floor.js';
import { HistoryWindowLedger, type ListGrowth } from './history-window-ledger.js';

/** One call of {@link GovernorHistoryWindow.window}. */
export type GovernorWindowRequest = {
  /** Index of the first in-flight message (never left out). */
  readonly inflightStartIndex: number;
  /** The run's compacted call ids as the call starts (their results may be shrunk: they cost 0). */
  readonly compacted: ReadonlySet<string>;
  readonly counter: TokenCounter;
  readonly floor: GovernedFloor;
  /** What the governor sent for an oversized result it rewrote before, if it did. */
  readonly rewrittenBefore: (message: Message) => Message | undefined;
  /**
   * How the list relates to the one the input check saw before it (`messageListGrowth`), when known:
   * the ledger then trusts it instead of comparing the list again.
   */
  readonly growth?: ListGrowth;
  /** What {@link GovernorHistoryWindow.follows} just said of this list, when the caller asked. */
  readonly extended?: boolean;
};

/**
 * The calls of `ContextGovernor.prepareForModel` on one growing list (the steps of a run, found by
 * the run's `compactedToolCallIds`, and the runs of later turns on the same list grown, which the
 * governor hands the window on to): leaves out the oldest history messages the governor is certain
 * to snip, so that no call looks at them (the forAgent history window's argument, over the
 * governor's own pipeline). Nothing in it belongs to a run: what it keeps (the ledger) depends only
 * on the list, and every call brings its run's in-flight start and compacted call ids. @internal
 *
 * Why the result is unchanged: walking from the newest message, it adds up each message's
 * `GovernedFloor`, with 0 for in-flight tool results and results of a compacted call id (in-flight
 * compaction may shrink them). Once the sum exceeds the budget, every estimate in-flight compaction
 * makes on the window exceeds it too, so it compacts every candidate (all in flight, so all in the
 * window) whether the older messages are there or not; and the snip walk stops inside the part
 * walked, so everything before the last user message at or before that point is snipped. The window
 * starts there (or at the last user message before the in-flight ones). It is only used when nothing
 * in the part left out can change how the rest is governed: no system message after the leading ones
 * (snipping keeps and counts them), no tool call id of the window among the left-out ones and no
 * duplicate id in the window (duplicates are renamed), and no in-flight message id among the left-out
 * messages (in-flight messages are told by id).
 *
 * The ledger (`HistoryWindowLedger`): the last list seen, and the tool call ids, message ids and late
 * system messages of the part left out so far. A step that only appends checks the old messages by
 * identity, scans what newly left the window and walks the window; any other list resets it.
 */
export class GovernorHistoryWindow {
  /** The tokens the floors must exceed (the budget, or compaction's target when above it). */
  readonly #budget: number;
  readonly #ledger = new HistoryWindowLedger({ collectsMessageIds: true });

  constructor(budgetTokens: number) {
    this.#budget = budgetTokens;
  }

  /**
   * The messages to govern (the leading system messages, then the window) and how many were left
   * out after the leading ones (0: `messages` itself).
   */
  window(
    messages: readonly Message[],
    request: GovernorWindowRequest,
  ): { readonly messages: readonly Message[]; readonly leftOut: number } {
    this.#ledger.follow(messages, request.extended ?? request.growth);
    const lead = this.#ledger.lead;
    const start = this.#start(messages, request);
    if (start <= lead) return { messages, leftOut: 0 };
    return { messages: messages.slice(0, lead).concat(messages.slice(start)), leftOut: start - lead };
  }

  /**
   * True when `messages` only grew since the list this window saw last (what it learnt holds for
   * them); changes nothing.
   */
  follows(messages: readonly Message[], growth: ListGrowth | undefined): boolean {
    return this.#ledger.extendedBy(messages, growth);
  }

  /** The first index to govern after the leading system run (`lead` when nothing can go). */
  #start(messages: readonly Message[], request: GovernorWindowRequest): number {
    const ledger = this.#ledger;
    const lead = ledger.lead;
    const inflight = Math.min(request.inflightStartIndex, messages.length);
    const run = { ...request, inflightStartIndex: inflight };
    let sum = 0;
    let index = messages.length - 1;
    for (; index >= lead; index -= 1) {
      sum += floorAt(messages, { index, run });
      if (sum > this.#budget) break;
    }
    if (index < lead) return lead;
    index = Math.min(index, inflight);
    while (index >= lead && messages[index]?.role !== 'user') index -= 1;
    if (index <= lead || index < ledger.scanned) return lead;
    ledger.leaveOut(messages, index);
    if (ledger.hasLateSystem) return lead;
    if (!this.#isFree(messages, { start: index, inflight })) return lead;
    return index;
  }

  /**
   * True when the call ids of the window are unique and none was left out, and no in-flight message
   * has the id of a left-out one.
   */
  #isFree(messages: readonly Message[], at: { readonly start: number; readonly inflight: number }): boolean {
    const { callIds, messageIds } = this.#ledger;
    const ids = new Set<string>();
    for (let index = at.start; index < messages.length; index += 1) {
      const message = messages[index] as Message; // index is in range
      if (index >= at.inflight && messageIds.has(message.id)) return false;
      for (const call of message.toolCalls ?? []) {
        if (ids.has(call.id) || callIds.has(call.id)) return false;
        ids.add(call.id);
      }
    }
    return true;
  }
}

/** The floor of `messages[at.index]`, 0 for a tool result in-flight compaction may shrink. */
function floorAt(
  messages: readonly Message[],
  at: { readonly index: number; readonly run: GovernorWindowRequest },
): number {
  const { index, run } = at;
  const message = messages[index] as Message; // the walk stays in range
  if (message.role === 'tool') {
    const id = message.toolCallId;
    if (index >= run.inflightStartIndex || (id !== undefined && run.compacted.has(id))) return 0;
  }
  return run.floor.tokens(messages, { index, counter: run.counter, rewrittenBefore: run.rewrittenBefore });
}
