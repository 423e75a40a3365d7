/**
 * Numbers remembered per history index for one session, over a history that only grows (the agent
 * history window's floors: a message's floor depends on it and the messages before it, and on the
 * session, which an offload reference names). The owner clears it when the history is edited;
 * indexes below the last walk are forgotten, so it holds about one window, in a typed array by
 * position (the window's walk reads one per message it passes, every build). @internal
 */
export class IndexFloors {
  /** `values[i]` is the number of index `base + i`; `NaN` when not known. */
  #values = new Float64Array(0);
  #base = 0;
  #session: string | undefined;

  /** Forgets everything when the session is another one than last time. */
  useSession(session: string | undefined): void {
    if (session === this.#session) return;
    this.clear();
    this.#session = session;
  }

  get(index: number): number | undefined {
    const value = index < this.#base ? undefined : this.#values[index - this.#base];
    return value === undefined || Number.isNaN(value) ? undefined : value;
  }

  set(index: number, floor: number): void {
    const end = this.#base + this.#values.length;
    if (index < this.#base || index >= end) this.#cover(index);
    this.#values[index - this.#base] = floor;
  }

  /** Forgets the indexes below `index` (a walk that stopped there will not look below it again). */
  forgetBelow(index: number): void {
    const drop = index - this.#base;
    if (drop <= 0) return;
    const values = this.#values;
    values.copyWithin(0, Math.min(drop, values.length));
    values.fill(Number.NaN, Math.max(0, values.length - drop));
    this.#base = index;
  }

  clear(): void {
    this.#values = new Float64Array(0);
    this.#base = 0;
  }

  /**
   * Grows the array to cover `index` too, doubling the span on the side it grows (a walk goes down
   * from the newest message; new messages come on top), so growing costs O(1) a set on average.
   */
  #cover(index: number): void {
    const values = this.#values;
    const low = this.#base;
    const high = low + values.length;
    let base: number;
    let length: number;
    if (values.length === 0) {
      base = Math.max(0, index - MIN_SPAN / 2);
      length = Math.max(MIN_SPAN, index - base + 1);
    } else if (index < low) {
      base = Math.max(0, index - (high - index));
      length = high - base;
    } else {
      base = low;
      length = 2 * (index + 1 - low);
    }
    const grown = new Float64Array(length).fill(Number.NaN);
    if (values.length > 0) grown.set(values, low - base);
    this.#values = grown;
    this.#base = base;
  }
}

/** The span of a new array. */
const MIN_SPAN = 64;
