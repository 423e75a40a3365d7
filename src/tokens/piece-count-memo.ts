/** Most distinct pieces kept; the memo is emptied when it is full (about 3 MB in all). */
const MAX_ENTRIES = 1 << 16;
/** Code units of all kept pieces together. */
const ARENA_UNITS = 1 << 20;
/** Longer pieces are not kept (rare, and they would crowd the arena). */
const MAX_PIECE_UNITS = 128;

/**
 * Token counts of pieces seen before, keyed by the piece's code units in place (`text`, `start`,
 * `end`): no substring, no `Map`, no allocation per lookup. Keys are copied into one fixed
 * `Uint16Array` and found through an open-addressing table of their hashes, so a hit costs a hash
 * and a comparison over the piece. Bounded: when the entries or the arena run out, it starts over.
 * @internal
 */
export class PieceCountMemo {
  readonly #units = new Uint16Array(ARENA_UNITS);
  readonly #slots = new Int32Array(MAX_ENTRIES * 2);
  readonly #offsets = new Int32Array(MAX_ENTRIES + 1);
  readonly #counts = new Int32Array(MAX_ENTRIES);
  #entries = 0;
  /** The piece the last lookup missed, and its free slot, for {@link PieceCountMemo.remember}. */
  readonly #missed = { text: '', start: 0, end: 0, slot: -1 };

  /** The count of `text[start…end)`, or -1 when it is not known. */
  // biome-ignore lint/complexity/useMaxParams: called per piece of every text; a range object would allocate
  lookup(text: string, start: number, end: number): number {
    const length = end - start;
    this.#missed.slot = -1;
    if (length > MAX_PIECE_UNITS) return -1;
    let hash = 0x811c9dc5;
    for (let index = start; index < end; index += 1)
      hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
    const mask = this.#slots.length - 1;
    for (let slot = (hash ^ (hash >>> 15)) & mask; ; slot = (slot + 1) & mask) {
      const entry = (this.#slots[slot] as number) - 1;
      if (entry < 0) {
        const missed = this.#missed;
        missed.text = text;
        missed.start = start;
        missed.end = end;
        missed.slot = slot;
        return -1;
      }
      const from = this.#offsets[entry] as number;
      if ((this.#offsets[entry + 1] as number) - from !== length) continue;
      let index = 0;
      while (index < length && this.#units[from + index] === text.charCodeAt(start + index)) index += 1;
      if (index === length) return this.#counts[entry] as number;
    }
  }

  /** Stores the count of the piece the last {@link PieceCountMemo.lookup} did not find. */
  remember(count: number): void {
    const { text, start, end, slot } = this.#missed;
    this.#missed.text = '';
    this.#missed.slot = -1;
    if (slot < 0) return;
    const from = this.#offsets[this.#entries] as number;
    if (this.#entries === MAX_ENTRIES || from + end - start > ARENA_UNITS) {
      this.#clear();
      if (this.lookup(text, start, end) < 0) this.remember(count);
      return;
    }
    for (let index = start; index < end; index += 1)
      this.#units[from + index - start] = text.charCodeAt(index);
    this.#counts[this.#entries] = count;
    this.#entries += 1;
    this.#offsets[this.#entries] = from + end - start;
    this.#slots[slot] = this.#entries;
  }

  #clear(): void {
    this.#slots.fill(0);
    this.#entries = 0;
  }
}
