/**
 * The history provider of a preset whose budget step drops the oldest messages, with what it learnt
 * about a history that only grows. This file is over 100 lines because the safety argument and the
 * window's walk belong together.
 */
import { decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import { withLead } from '../core/with-lead.js';
import { HistoryWindowLedger } from '../filters/history-window-ledger.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider, ProviderResult } from '../pipeline/contracts.js';
import { SectionTags } from '../pipeline/section-tags.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { IndexFloors } from './index-floors.js';
import { WindowCallIds } from './window-call-ids.js';

/**
 * What `history[at.index]` costs at least once the preset's filters have done their work, 0 for a
 * message they may shrink or drop. It may depend on the message and those before it, on the build's
 * input, and on what the filters learnt in earlier builds (a positive floor is remembered per index
 * while the history only grows; a floor of 0 is asked again). `tag` gives the message as the filters
 * see it (tagged with the history section).
 */
export type HistoryFloor = (
  history: readonly Message[],
  at: {
    readonly index: number;
    readonly counter: TokenCounter;
    readonly input: BuildInput;
    readonly tag: (message: Message) => Message;
  },
) => number;

/** Options for {@link HistoryWindow}. @internal */
export type HistoryWindowOptions = {
  /** The budget the preset's budget step enforces, in `unit`s; 0 turns the window off. */
  readonly budget: number;
  /** What the budget and the floors count: tokens (a token budget) or messages (a message limit). @default 'tokens' */
  readonly unit?: 'tokens' | 'messages';
  readonly floor: HistoryFloor;
  /** Who would drop what is left out, for the decision, e.g. `the governor would snip them`. */
  readonly droppedBy: string;
  /** Builds that get the whole history (besides a 0 budget and `BuildContext.wholeHistory`). @default none */
  readonly isOff?: (input: BuildInput) => boolean;
};

/**
 * Emits `input.history` like the plain history provider (id `history`; no copy of a message), but
 * leaves out the oldest messages the preset's budget step is certain to drop, so that nothing after
 * it looks at them: no count, no rewrite, no integrity scan.
 *
 * Why the output is unchanged: walking from the newest message, it adds up each message's floor (a
 * lower bound of what it costs once the filters have done their work; see {@link HistoryFloor}),
 * leaving out the newest message (it may be merged with the current one, and is always kept). Once
 * that sum exceeds the whole budget, the budget step's own newest-first walk must stop inside the
 * part walked, so everything before the last user message at or before that point is dropped,
 * whatever the steps do. The window is only used when nothing in the part left out can change how
 * the rest is handled: no system message after the leading ones (budget steps keep those), no tool
 * call id shared with the window (duplicate ids are renamed), no duplicate id inside the window, and
 * no filter that reads the whole history (`BuildContext.wholeHistory`, e.g. a cache-aware trim,
 * whose cut points depend on where the history starts).
 *
 * The ledger (`HistoryWindowLedger`): the last history seen, and the tool call ids and late system
 * messages of the part left out so far. A turn that only appends messages checks the old messages
 * by identity (no text is read), scans only what newly left the window, and walks the window; an
 * edited old message (a new object at an old position) resets the ledger and what was learnt.
 * Stateful by design (one per builder); the messages sent are always what the whole history gives.
 * What it leaves out may depend on what was learnt (a floor known now that was 0 before), so a warm
 * builder's left-out count and stage sizes may differ from a fresh one's. @internal
 */
export class HistoryWindow implements MessageProvider {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'history';
  readonly #budget: number;
  readonly #floor: HistoryFloor;
  readonly #droppedBy: string;
  readonly #unit: 'tokens' | 'messages';
  readonly #isOff: ((input: BuildInput) => boolean) | undefined;
  /** The window is emitted tagged (section `history`), so the filters' caches see these objects. */
  readonly #tags = new SectionTags();
  readonly #tag = (message: Message): Message => this.#tags.tag(message, this.id);
  readonly #ledger = new HistoryWindowLedger({ collectsMessageIds: false });
  /** The floor of each history index walked (see `IndexFloors`). */
  readonly #floors = new IndexFloors();
  /** The window's call ids, extended per turn (see `WindowCallIds`). */
  readonly #windowIds = new WindowCallIds();
  /** The messages last emitted for a window starting at `start` (tagged), extended per turn. */
  #emitted:
    | {
        readonly lead: number;
        readonly start: number;
        readonly length: number;
        readonly messages: readonly Message[];
      }
    | undefined;
  #last: { readonly start: number; readonly length: number; readonly out: ProviderResult } | undefined;

  constructor(options: HistoryWindowOptions) {
    this.#budget = options.budget;
    this.#unit = options.unit ?? 'tokens';
    this.#floor = options.floor;
    this.#droppedBy = options.droppedBy;
    this.#isOff = options.isOff;
  }

  getMessages(input: BuildInput, context: BuildContext): ProviderResult {
    const history = input.history ?? [];
    if (!(this.#budget > 0) || context.wholeHistory === true || this.#isOff?.(input) === true) {
      return { messages: history, decisions: [] };
    }
    this.#learn(history, context);
    const last = this.#last;
    // The same messages as the last build (checked by identity in #learn): the same window.
    if (last !== undefined && last.length === history.length) return last.out;
    const start = this.#safeStart(history, { counter: context.tokenCounter, input });
    const out = this.#emit(history, start);
    this.#last = { start, length: history.length, out };
    return out;
  }

  /** Keeps what was learnt when `history` only grew since the last build; forgets it otherwise. */
  #learn(history: readonly Message[], context: BuildContext): void {
    // The pipeline's input check has compared this history with the one before (the one seen here
    // last, when this window serves one pipeline): no second pass over the history.
    if (!this.#ledger.follow(history, context.historyGrowth)) {
      this.#floors.clear();
      this.#windowIds.clear();
      this.#emitted = undefined;
      this.#last = undefined;
    }
    if (this.#last !== undefined && this.#last.length !== history.length) this.#last = undefined;
  }

  /** The first history index to emit after the leading system run (`lead` when nothing can go). */
  #safeStart(
    history: readonly Message[],
    run: { readonly counter: TokenCounter; readonly input: BuildInput },
  ): number {
    const ledger = this.#ledger;
    const lead = ledger.lead;
    let floor = 0;
    const floors = this.#floors;
    floors.useSession(run.input.sessionKey);
    // The newest history message is left out of the sum (see the class comment).
    let index = history.length - 2;
    for (; index >= lead; index -= 1) {
      let known = floors.get(index);
      if (known === undefined) {
        known = this.#floor(history, { ...run, index, tag: this.#tag });
        if (known > 0) floors.set(index, known);
      }
      floor += known;
      if (floor > this.#budget) break;
    }
    floors.forgetBelow(index);
    while (index >= lead && history[index]?.role !== 'user') index -= 1;
    if (index <= lead) return lead;
    if (index < ledger.scanned) return lead; // never moves back on a grown history; be safe if it does
    ledger.leaveOut(history, index);
    if (ledger.hasLateSystem) return lead;
    if (!this.#windowIds.areFree(history, { start: index, leftOut: ledger.callIds })) return lead;
    return index;
  }

  #emit(history: readonly Message[], start: number): ProviderResult {
    const lead = this.#ledger.lead;
    const tag = this.#tag;
    if (start <= lead) return { messages: history.map(tag), decisions: [] };
    const last = this.#emitted;
    // A window that starts where last turn's did or later: last turn's tagged messages from that start
    // on, then the new ones (tagged once); no message is looked up again.
    let messages: Message[];
    if (last !== undefined && last.lead === lead && last.start <= start && start <= last.length) {
      messages = withLead(last.messages, { skip: start - last.start, lead: last.messages.slice(0, lead) });
      for (let index = last.length; index < history.length; index += 1)
        messages.push(tag(history[index] as Message));
    } else messages = [...history.slice(0, lead), ...history.slice(start)].map(tag);
    this.#emitted = { lead, start, length: history.length, messages };
    const first = history[lead] as Message; // lead < start ≤ length
    const lastLeftOut = history[start - 1] as Message;
    const count = start - lead;
    return {
      messages,
      decisions: [
        decision('message-drop', {
          stage: this.id,
          reason:
            `Left out the ${count} oldest history message(s): even at their smallest the newer ones exceed ` +
            `${this.#unit === 'tokens' ? `the input budget of ${this.#budget} tokens` : `the limit of ${this.#budget} messages`}, ` +
            `so ${this.#droppedBy} (not counted).`,
          messageIds: [],
          messageRange: { firstId: first.id, lastId: lastLeftOut.id, count },
          details: this.#unit === 'tokens' ? { budgetTokens: this.#budget } : { maxMessages: this.#budget },
        }),
      ],
    };
  }
}
