import type { Message } from '../core/message.js';

/**
 * The tool call ids of the agent history window `[from, to)`, last found free (unique, and none among
 * the ids of the messages left out), kept so that the next turn of a history that only grows looks at
 * its new messages only. @internal
 */
export class WindowCallIds {
  #known: { readonly from: number; readonly to: number; readonly ids: Set<string> } | undefined;

  /**
   * True when the call ids of `history[start…]` are unique and none is in `leftOut`. Ids of messages
   * that left the window since the last check are dropped (they were unique in it, and are left-out
   * ids now); a window that starts earlier than last time is checked whole.
   */
  areFree(
    history: readonly Message[],
    window: { readonly start: number; readonly leftOut: ReadonlySet<string> },
  ): boolean {
    const { start, leftOut } = window;
    let known = this.#known;
    this.#known = undefined;
    if (known === undefined || start < known.from) known = { from: start, to: start, ids: new Set() };
    const { ids } = known;
    for (let index = known.from; index < start; index += 1) {
      for (const call of history[index]?.toolCalls ?? []) ids.delete(call.id);
    }
    for (let index = Math.max(known.to, start); index < history.length; index += 1) {
      for (const call of history[index]?.toolCalls ?? []) {
        if (ids.has(call.id) || leftOut.has(call.id)) return false;
        ids.add(call.id);
      }
    }
    this.#known = { from: start, to: history.length, ids };
    return true;
  }

  /** Forgets the window (the history was edited). */
  clear(): void {
    this.#known = undefined;
  }
}
