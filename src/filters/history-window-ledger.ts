import { extendsMarkedList, type ListMark, markList } from '../core/list-mark.js';
import type { Message } from '../core/message.js';

/** How a list relates to the one an input check saw before it (`BuildContext.historyGrowth`). */
export type ListGrowth = { readonly previous: readonly unknown[]; readonly shared: number };

/**
 * What a history window (the agent preset's and the governor's) learnt about a list that only grows:
 * the list last seen, the length of its leading run of system messages, and the tool call ids
 * (and, if asked, the message ids) and late system messages of the part left out so far. A call
 * that only appends keeps it and scans only what newly left the window; any other list resets it.
 * @internal
 */
export class HistoryWindowLedger {
  readonly #collectsMessageIds: boolean;
  /** The list last seen, as it was then (a caller may push to or splice the same array). */
  #seen: ListMark<Message> = markList([]);
  #lead = 0;
  #scanned = 0;
  #callIds = new Set<string>();
  #messageIds = new Set<string>();
  #hasLateSystem = false;

  /** `collectsMessageIds`: also keep the left-out messages' ids (the governor tells in-flight ones by id). */
  constructor(options: { readonly collectsMessageIds: boolean }) {
    this.#collectsMessageIds = options.collectsMessageIds;
  }

  /** Length of the leading run of system messages (never left out). */
  get lead(): number {
    return this.#lead;
  }

  /** How far the left-out part has been scanned: a window never starts before it on a grown list. */
  get scanned(): number {
    return this.#scanned;
  }

  /** True when a left-out message is a system message after the leading ones. */
  get hasLateSystem(): boolean {
    return this.#hasLateSystem;
  }

  /** The tool call ids of the messages left out. */
  get callIds(): ReadonlySet<string> {
    return this.#callIds;
  }

  /** The ids of the messages left out (empty unless `collectsMessageIds`). */
  get messageIds(): ReadonlySet<string> {
    return this.#messageIds;
  }

  /**
   * True when `messages` only grew since the last list this ledger followed (what it learnt still
   * holds for it); changes nothing. `growth` as in {@link HistoryWindowLedger.follow}.
   */
  extendedBy(messages: readonly Message[], growth: ListGrowth | undefined): boolean {
    return growth !== undefined && growth.previous === this.#seen.list
      ? growth.shared >= this.#seen.length
      : extendsMarkedList(this.#seen, messages);
  }

  /**
   * Keeps the ledger when `messages` only grew since the last call, resets it otherwise, and finds
   * the leading system run when it may have changed. `growth`, when the input check compared this
   * list with the one seen here last, is trusted instead of comparing again; a boolean is what
   * {@link HistoryWindowLedger.extendedBy} just said of this list.
   * @returns whether the ledger was kept
   */
  follow(messages: readonly Message[], growth: ListGrowth | boolean | undefined): boolean {
    const known = this.#seen.length;
    const grown = typeof growth === 'boolean' ? growth : this.extendedBy(messages, growth);
    if (!grown) {
      this.#scanned = 0;
      this.#callIds = new Set();
      this.#messageIds = new Set();
      this.#hasLateSystem = false;
    }
    if (!grown || this.#lead === known) {
      // First sight, an edit, or a list that so far was only system messages: find the leading run.
      let lead = grown ? this.#lead : 0;
      while (lead < messages.length && messages[lead]?.role === 'system') lead += 1;
      this.#lead = lead;
      this.#scanned = Math.max(this.#scanned, lead);
    }
    this.#seen = markList(messages);
    return grown;
  }

  /** Adds the messages `[scanned, end)` to the part left out. */
  leaveOut(messages: readonly Message[], end: number): void {
    for (let index = this.#scanned; index < end; index += 1) {
      const message = messages[index] as Message; // index is in range
      if (message.role === 'system') this.#hasLateSystem = true;
      if (this.#collectsMessageIds) this.#messageIds.add(message.id);
      for (const call of message.toolCalls ?? []) this.#callIds.add(call.id);
    }
    this.#scanned = end;
  }
}
