/**
 * The history part of the agent preset, with what it learnt about a history that only grows. This
 * file is over 100 lines because the safety argument and the window's walk belong together.
 */
import { decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import { GovernedFloor } from '../filters/governed-floor.js';
import { DEFAULT_OFFLOAD_EXEMPT_TOOLS } from '../filters/governor-constants.js';
import { GOVERNOR_STATE_KEY } from '../filters/governor-run-state.js';
import { HistoryWindowLedger } from '../filters/history-window-ledger.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider, ProviderResult } from '../pipeline/contracts.js';
import { SectionTags } from '../pipeline/section-tags.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { IndexFloors } from './index-floors.js';
import { WindowCallIds } from './window-call-ids.js';

/** Options for {@link AgentHistoryWindow}. */
export type AgentHistoryWindowOptions = {
  /** The governor's input budget in tokens; 0 turns the window off (the whole history is emitted). */
  readonly budgetTokens: number;
  /** Assistant texts the governor strips as placeholders (they cost nothing in the window walk). */
  readonly placeholderTexts: readonly string[];
  /** Characters a tool result may have before the governor offloads or truncates it. */
  readonly maxToolResultChars: number;
  /** Tools whose results the governor never offloads or truncates (sent as they are). @default ['read_file'] */
  readonly exemptTools?: readonly string[];
  /**
   * What the governor sends for an oversized tool result it rewrote in an earlier build (its offload
   * reference), if it did: such a result costs at least that, not 0. @default none (they cost 0)
   */
  readonly rewrittenBefore?: (message: Message, input: BuildInput) => Message | undefined;
};

/**
 * Emits `input.history` like the plain history provider (same id, `history`; no copy of the list
 * and no copy of a message), but leaves out the oldest messages the context governor is certain to
 * snip, so that nothing after it looks at them: no count, no offload, no integrity scan.
 *
 * Why the output is unchanged: walking from the newest message, it adds up a lower bound of what each
 * message can cost once governed: its exact tokens for user messages, assistant answers whose tool
 * calls are all sendable, and tool results that answer their assistant and are not over the size
 * limit (or belong to an exempt tool such as `read_file`, sent as they are); for an oversized result
 * the governor offloaded in an earlier build, the exact tokens of its reference (what is sent, never
 * its text); 0 for what the governor may shrink or drop (other oversized or unpaired results, placeholders,
 * assistants with a broken call) and for the newest message, which may be merged with the current one. Once that
 * sum exceeds the whole budget, the governor's own newest-first walk must stop inside the part
 * walked, so everything before the last user message at or before that point is snipped, whatever
 * the later steps do. The window is only used when nothing in the part left out can change how the
 * rest is governed: no system message after the leading ones (the governor keeps those), no tool
 * call id shared with the window (duplicate ids are renamed), no duplicate id inside the window, and
 * no tool-loop state in the input (in-flight compaction works by position), and no filter that reads
 * the whole history (`BuildContext.wholeHistory`, e.g. a cache-aware trim, whose cut points depend on
 * where the history starts).
 *
 * The ledger (`HistoryWindowLedger`): the last history seen, and the tool call ids and late system
 * messages of the part left out so far. A turn that only appends messages checks the old messages
 * by identity (no text is read), scans only what newly left the window, and walks the window; an
 * edited old message (a new object at an old position) resets the ledger and what was learnt.
 * Stateful by design (one per builder); the result is always what the whole history would give.
 *
 * What it leaves out may depend on what the builder learnt, never the messages sent: a warm builder
 * prices a result it saw offloaded at its reference where a fresh one prices it at 0, so it may
 * leave out more messages (its trace's left-out count and stage sizes differ; the governor would
 * have snipped those messages anyway).
 */
export class AgentHistoryWindow implements MessageProvider {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'history';
  readonly #budget: number;
  readonly #floor: GovernedFloor;
  readonly #rewrittenBefore: ((message: Message, input: BuildInput) => Message | undefined) | undefined;
  /** The window is emitted tagged (section `history`), so the governor's caches see these objects. */
  readonly #tags = new SectionTags();
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

  constructor(options: AgentHistoryWindowOptions) {
    this.#budget = options.budgetTokens;
    this.#floor = new GovernedFloor({
      placeholderTexts: options.placeholderTexts,
      maxToolResultChars: options.maxToolResultChars,
      exemptTools: options.exemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS,
    });
    this.#rewrittenBefore = options.rewrittenBefore;
  }

  getMessages(input: BuildInput, context: BuildContext): ProviderResult {
    const history = input.history ?? [];
    if (
      !(this.#budget > 0) ||
      context.wholeHistory === true ||
      input.state?.[GOVERNOR_STATE_KEY] !== undefined
    ) {
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
  #safeStart(history: readonly Message[], run: Omit<FloorRun, 'index'>): number {
    const ledger = this.#ledger;
    const lead = ledger.lead;
    let floor = 0;
    // The newest history message is left out of the sum: a user message there is merged with the
    // current one, and the governor keeps the newest message whatever it costs.
    const floors = this.#floors;
    floors.useSession(run.input.sessionKey);
    let index = history.length - 2;
    for (; index >= lead; index -= 1) {
      floor += floors.get(index) ?? this.#floorAt(history, { ...run, index });
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

  /** The floor of the message at `index` (see `GovernedFloor`), remembered (a result that may be offloaded later is asked again). */
  #floorAt(history: readonly Message[], at: FloorRun): number {
    const tokens = this.#floor.tokens(history, {
      index: at.index,
      counter: at.counter,
      rewrittenBefore: (message) => this.#rewrittenBefore?.(this.#tags.tag(message, this.id), at.input),
    });
    if (tokens > 0 || history[at.index]?.role !== 'tool') this.#floors.set(at.index, tokens);
    return tokens;
  }

  #emit(history: readonly Message[], start: number): ProviderResult {
    const lead = this.#ledger.lead;
    const tag = (message: Message): Message => this.#tags.tag(message, this.id);
    if (start <= lead) return { messages: history.map(tag), decisions: [] };
    const last = this.#emitted;
    // The same window start as last turn: last turn's messages, then the new ones (tagged once).
    const messages =
      last !== undefined && last.lead === lead && last.start === start
        ? last.messages.concat(history.slice(last.length).map(tag))
        : [...history.slice(0, lead), ...history.slice(start)].map(tag);
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
            `the input budget of ${this.#budget} tokens, so the governor would snip them (not counted).`,
          messageIds: [],
          messageRange: { firstId: first.id, lastId: lastLeftOut.id, count },
          details: { budgetTokens: this.#budget },
        }),
      ],
    };
  }
}

/** Where the window walk is: the message index, the build's counter and input. */
type FloorRun = { readonly index: number; readonly counter: TokenCounter; readonly input: BuildInput };
