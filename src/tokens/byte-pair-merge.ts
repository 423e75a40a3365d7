import { type BpeRanks, NO_RANK } from './bpe-ranks.js';

/** Pieces longer than this many bytes merge through a heap, O(n log n), instead of a scan, O(n²). */
const SCAN_LIMIT_BYTES = 64;
/** A pair with no rank; above every real rank. */
const NONE = 0x7fffffff;
/** Scratch arrays longer than this are released after the merge that needed them. */
const MAX_KEPT_SCRATCH = 1 << 16;

/**
 * Byte-pair merging of one pre-tokenized piece, as tiktoken and gpt-tokenizer do it: repeatedly
 * merge the adjacent pair of parts whose joined bytes have the lowest rank (the leftmost on a tie)
 * until no pair is in the vocabulary. Parts are a linked list over byte offsets, each with the hash
 * of its bytes, so a merge costs two O(1) lookups. Short pieces find the lowest pair by a scan; long
 * ones through a heap with the same (rank, offset) order, so a 1 MB piece takes milliseconds instead
 * of minutes and merges identically. Scratch arrays are reused between pieces.
 * @internal
 */
export class BytePairMerger {
  readonly #ranks: BpeRanks;
  #bytes: Uint8Array = new Uint8Array(1);
  #length = 0;
  #next = new Int32Array(SCAN_LIMIT_BYTES + 1);
  #previous = new Int32Array(SCAN_LIMIT_BYTES + 1);
  #hashes = new Int32Array(SCAN_LIMIT_BYTES + 1);
  #pairRanks = new Int32Array(SCAN_LIMIT_BYTES + 1);
  readonly #heap = new MinHeap(SCAN_LIMIT_BYTES * 4);

  constructor(ranks: BpeRanks) {
    this.#ranks = ranks;
  }

  /**
   * Merges `bytes[0…length)`, a whole piece (valid UTF-8, followed by a byte that is not a UTF-8
   * continuation byte), and returns the number of parts: its token count.
   */
  merge(bytes: Uint8Array, length: number): number {
    if (this.#next.length <= length) this.#grow(length + 1);
    this.#bytes = bytes;
    this.#length = length;
    for (let index = 0; index < length; index += 1) {
      this.#next[index] = index + 1;
      this.#hashes[index] = (bytes[index] as number) + 1;
    }
    this.#next[length] = length;
    return length <= SCAN_LIMIT_BYTES ? this.#mergeByScan() : this.#mergeByHeap();
  }

  /**
   * Lets go of scratch arrays grown for a huge piece (a megabyte-long run of letters needs tens of
   * MB), so a shared encoder does not keep them.
   */
  shrink(): void {
    if (this.#next.length > MAX_KEPT_SCRATCH) this.#grow(SCAN_LIMIT_BYTES + 1);
    this.#heap.shrink();
  }

  #grow(size: number): void {
    this.#next = new Int32Array(size);
    this.#previous = new Int32Array(size);
    this.#hashes = new Int32Array(size);
    this.#pairRanks = new Int32Array(size);
  }

  /** The token ids of the parts of the last {@link BytePairMerger.merge}, in order. */
  ranksOfParts(into: number[]): void {
    const length = this.#length;
    for (let start = 0; start < length; start = this.#next[start] as number) {
      const end = this.#next[start] as number;
      into.push(this.#ranks.mergeRank(this.#bytes, start, end, this.#hashes[start] as number));
    }
  }

  #mergeByScan(): number {
    const next = this.#next;
    const pairRanks = this.#pairRanks;
    const length = this.#length;
    for (let start = 0; start < length; start += 1) pairRanks[start] = this.#pairRank(start);
    let parts = length;
    while (parts > 1) {
      let lowest = NONE;
      let at = -1;
      let before = -1;
      for (let previous = -1, start = 0; start < length; previous = start, start = next[start] as number) {
        if ((pairRanks[start] as number) < lowest) {
          lowest = pairRanks[start] as number;
          at = start;
          before = previous;
        }
      }
      if (at < 0) break;
      this.#join(at);
      parts -= 1;
      pairRanks[at] = this.#pairRank(at);
      if (before >= 0) pairRanks[before] = this.#pairRank(before);
    }
    return parts;
  }

  /**
   * The same merge order through a binary min-heap of `rank · 2³² + offset` keys; a popped key is
   * stale (skipped) when its part was merged away or its pair's rank changed since.
   */
  #mergeByHeap(): number {
    const length = this.#length;
    const previous = this.#previous;
    const pairRanks = this.#pairRanks;
    const heap = this.#heap;
    const update = (start: number) => {
      const rank = this.#pairRank(start);
      pairRanks[start] = rank;
      if (rank !== NONE) heap.push(rank * 0x1_0000_0000 + start);
    };
    for (let start = 0; start < length; start += 1) {
      previous[start] = start - 1;
      update(start);
    }
    let parts = length;
    while (heap.size > 0) {
      const key = heap.pop();
      const start = key % 0x1_0000_0000;
      if (pairRanks[start] !== (key - start) / 0x1_0000_0000) continue;
      const removed = this.#next[start] as number;
      this.#join(start);
      pairRanks[removed] = NONE;
      previous[this.#next[start] as number] = start;
      parts -= 1;
      update(start);
      if (start > 0) update(previous[start] as number);
    }
    return parts;
  }

  /** Joins the part at `start` with the next one. */
  #join(start: number): void {
    const right = this.#next[start] as number;
    const end = this.#next[right] as number;
    this.#hashes[start] =
      (Math.imul(this.#hashes[start] as number, this.#ranks.power(end - right)) +
        (this.#hashes[right] as number)) |
      0;
    this.#next[start] = end;
  }

  /** The rank of the part at `start` joined with the next one, or `NONE`. */
  #pairRank(start: number): number {
    const right = this.#next[start] as number;
    if (right >= this.#length) return NONE;
    const end = this.#next[right] as number;
    if (end - start > this.#ranks.maxTokenBytes) return NONE;
    const hash =
      (Math.imul(this.#hashes[start] as number, this.#ranks.power(end - right)) +
        (this.#hashes[right] as number)) |
      0;
    const rank = this.#ranks.mergeRank(this.#bytes, start, end, hash);
    return rank === NO_RANK ? NONE : rank;
  }
}

/** A binary min-heap of numbers in a growable `Float64Array`. */
class MinHeap {
  #items: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.#items = new Float64Array(Math.max(16, capacity));
  }

  /** Empties the heap and lets go of storage grown past {@link MAX_KEPT_SCRATCH}. */
  shrink(): void {
    this.size = 0;
    if (this.#items.length > MAX_KEPT_SCRATCH) this.#items = new Float64Array(SCAN_LIMIT_BYTES * 4);
  }

  push(value: number): void {
    if (this.size === this.#items.length) {
      const grown = new Float64Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    const items = this.#items;
    let index = this.size;
    this.size += 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[index] = items[parent] as number;
      index = parent;
    }
    items[index] = value;
  }

  pop(): number {
    const items = this.#items;
    const top = items[0] as number;
    this.size -= 1;
    const last = items[this.size] as number;
    let index = 0;
    for (let child = 1; child < this.size; child = index * 2 + 1) {
      if (child + 1 < this.size && (items[child + 1] as number) < (items[child] as number)) child += 1;
      if ((items[child] as number) >= last) break;
      items[index] = items[child] as number;
      index = child;
    }
    items[index] = last;
    return top;
  }
}
