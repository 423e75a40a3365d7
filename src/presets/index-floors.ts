/**
 * Numbers remembered per history index for one session, over a history that only grows (the agent
 * history window's floors: a message's floor depends on it and the messages before it, and on the
 * session, which an offload reference names). The owner clears it when the history is edited;
 * indexes below the last walk are forgotten, so it holds about one window. @internal
 */
export class IndexFloors {
  readonly #floors = new Map<number, number>();
  #low = 0;
  #session: string | undefined;

  /** Forgets everything when the session is another one than last time. */
  useSession(session: string | undefined): void {
    if (session === this.#session) return;
    this.#floors.clear();
    this.#session = session;
  }

  get(index: number): number | undefined {
    return this.#floors.get(index);
  }

  set(index: number, floor: number): void {
    if (this.#floors.size === 0 || index < this.#low) this.#low = index;
    this.#floors.set(index, floor);
  }

  /** Forgets the indexes below `index` (a walk that stopped there will not look below it again). */
  forgetBelow(index: number): void {
    for (let low = this.#low; low < index; low += 1) this.#floors.delete(low);
    if (index > this.#low) this.#low = index;
  }

  clear(): void {
    this.#floors.clear();
  }
}
