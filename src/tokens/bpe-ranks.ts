import { ContextError } from '../core/errors.js';

/** `rankOf` when a byte sequence is not in the vocabulary. */
export const NO_RANK = -1;

/** The base of the polynomial byte hash: `hash(a + b) = hash(a) · BASE^|b| + hash(b)` (mod 2³²). */
const BASE = 0x01000193;

/**
 * A byte-pair-encoding vocabulary (byte sequence → rank) in flat typed arrays: every token's bytes
 * in one buffer, an open-addressing hash table over them, no string or object per token. Built from
 * a `.tiktoken` file (`base64 rank` per line, ranks 0…n-1 in order) in one pass over its bytes, so
 * loading o200k_base's 200,000 tokens takes a fraction of what building a `Map` of strings takes.
 * The hash is polynomial, so the hash of two adjacent parts joined is computed from theirs in O(1)
 * ({@link BpeRanks.power}): byte-pair merging never re-reads a part to look a pair up.
 *
 * Lookups reproduce gpt-tokenizer 4.0.0's, so counts and token ids are identical to it: that
 * library decodes a valid UTF-8 sequence with a `TextDecoder`, which drops a leading byte-order
 * mark, and looks the rest up as a string. So a sequence that starts with U+FEFF and ends on a
 * character boundary is looked up without it, and the tokens that start with U+FEFF and are valid
 * UTF-8 (nine in o200k_base) are never found.
 * @internal
 */
export class BpeRanks {
  /** The number of tokens (ranks 0…size-1). */
  readonly size: number;
  /** The length in bytes of the longest token: no longer sequence has a rank. */
  readonly maxTokenBytes: number;
  readonly #bytes: Uint8Array;
  readonly #offsets: Uint32Array;
  readonly #slots: Int32Array;
  readonly #mask: number;
  readonly #powers: Int32Array;
  /** Ranks of every two-byte sequence, indexed directly: most lookups of a merge are byte pairs. */
  readonly #bytePairs = new Int32Array(0x10000).fill(NO_RANK);

  /** From every token's bytes, their offsets (ranks 0…n-1 in order) and each token's {@link hashBytes}. */
  constructor(tokens: {
    readonly bytes: Uint8Array;
    readonly offsets: Uint32Array;
    readonly hashes: Int32Array;
  }) {
    const { bytes, offsets, hashes } = tokens;
    this.#bytes = bytes;
    this.#offsets = offsets;
    this.size = offsets.length - 1;
    let capacity = 1;
    while (capacity < this.size * 2) capacity *= 2;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    const pairs = this.#bytePairs;
    let longest = 0;
    // One loop without calls: it runs once, cold, mostly before the JIT has compiled it.
    for (let rank = 0, start = 0; rank < this.size; rank += 1) {
      const end = offsets[rank + 1] as number;
      const length = end - start;
      if (length > longest) longest = length;
      if (length === 2) pairs[((bytes[start] as number) << 8) | (bytes[start + 1] as number)] = rank;
      if (
        bytes[start] !== 0xef ||
        !(startsWithBom(bytes, start) && isValidUtf8(bytes.subarray(start, end)))
      ) {
        const hash = hashes[rank] as number;
        const mixed = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b);
        let slot = (mixed ^ (mixed >>> 16)) & mask;
        while (slots[slot] !== 0) slot = (slot + 1) & mask;
        slots[slot] = rank + 1;
      }
      start = end;
    }
    this.#slots = slots;
    this.#mask = mask;
    this.maxTokenBytes = longest;
    this.#powers = new Int32Array(longest + 1);
    this.#powers[0] = 1;
    for (let length = 1; length <= longest; length += 1)
      this.#powers[length] = Math.imul(this.#powers[length - 1] as number, BASE);
  }

  /**
   * Parses a `.tiktoken` file in one pass over its bytes (base64 decoded in place).
   * @throws ContextError `TOKENIZER_UNAVAILABLE` when a line is not `base64 rank` with ranks in order.
   */
  static fromTiktoken(file: Uint8Array): BpeRanks {
    const reader = new TiktokenReader(file);
    for (let index = 0; index < file.length; )
      index = file[index] === 0x0a ? index + 1 : reader.readLine(index);
    return new BpeRanks(reader.tokens());
  }

  /** `BASE^length`: `hash(a + b) = hash(a) · power(|b|) + hash(b)` (mod 2³²), for any `|b| ≤ maxTokenBytes`. */
  power(length: number): number {
    return this.#powers[length] as number;
  }

  /**
   * The rank of `bytes[start…end)` as gpt-tokenizer looks it up while merging (see the class), or
   * {@link NO_RANK}. `hash` is the sequence's {@link hashBytes}. `bytes` holds a whole piece, valid
   * UTF-8, followed by a byte that is not a continuation byte (so `end` at the piece's end is a
   * character boundary).
   */
  // biome-ignore lint/complexity/useMaxParams: called for every byte pair; an options object would allocate
  mergeRank(bytes: Uint8Array, start: number, end: number, hash: number): number {
    if (end - start === 2)
      return this.#bytePairs[((bytes[start] as number) << 8) | (bytes[start + 1] as number)] as number;
    if (end - start > this.maxTokenBytes) return NO_RANK;
    if (end - start >= 3 && startsWithBom(bytes, start) && ((bytes[end] as number) & 0xc0) !== 0x80) {
      return end - start === 3
        ? NO_RANK
        : this.#find(bytes, start + 3, end, hashBytes(bytes, start + 3, end));
    }
    return this.#find(bytes, start, end, hash);
  }

  /** The rank of exactly `bytes[0…length)` (a whole pre-tokenized piece), or {@link NO_RANK}. */
  exactRankOf(bytes: Uint8Array, length: number): number {
    return length > this.maxTokenBytes ? NO_RANK : this.#find(bytes, 0, length, hashBytes(bytes, 0, length));
  }

  /** The bytes of a token. */
  tokenBytes(rank: number): Uint8Array {
    return this.#bytes.subarray(this.#offsets[rank], this.#offsets[rank + 1]);
  }

  // biome-ignore lint/complexity/useMaxParams: the innermost lookup of byte-pair merging; no allocation per call
  #find(piece: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    for (let slot = slotOf(hash, this.#mask); ; slot = (slot + 1) & this.#mask) {
      const entry = this.#slots[slot] as number;
      if (entry === 0) return NO_RANK;
      const from = this.#offsets[entry - 1] as number;
      if ((this.#offsets[entry] as number) - from !== length) continue;
      let index = 0;
      while (index < length && this.#bytes[from + index] === piece[start + index]) index += 1;
      if (index === length) return entry - 1;
    }
  }
}

/** The polynomial hash of `bytes[start…end)`: Σ (byte + 1) · BASE^(end-1-i) mod 2³². @internal */
// biome-ignore lint/complexity/useMaxParams: hashes a range of the piece buffer; a range object would allocate
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0;
  for (let index = start; index < end; index += 1)
    hash = (Math.imul(hash, BASE) + (bytes[index] as number) + 1) | 0;
  return hash;
}

/** The table slot of a hash: the polynomial hash's bits mixed, then masked. */
function slotOf(hash: number, mask: number): number {
  const mixed = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b);
  return (mixed ^ (mixed >>> 16)) & mask;
}

/** Whether `bytes` has a UTF-8 byte-order mark (EF BB BF) at `start`. */
function startsWithBom(bytes: Uint8Array, start: number): boolean {
  return bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf;
}

/**
 * Strict UTF-8 validation (no overlong forms, surrogates or code points above U+10FFFF), by hand:
 * a `TextDecoder` would load ICU's converters at startup for nine tokens.
 */
function isValidUtf8(bytes: Uint8Array): boolean {
  for (let index = 0; index < bytes.length; ) {
    const size = sequenceLength(bytes[index] as number);
    if (size === 0 || index + size > bytes.length || !isValidSequence(bytes.subarray(index, index + size)))
      return false;
    index += size;
  }
  return true;
}

/** The length of the UTF-8 sequence a lead byte starts, or 0 for a byte no sequence starts with. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead < 0xc2) return 0;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  return lead < 0xf5 ? 4 : 0;
}

/** Whether one sequence has continuation bytes and encodes a scalar value in its shortest form. */
function isValidSequence(sequence: Uint8Array): boolean {
  const size = sequence.length;
  let point = size === 1 ? (sequence[0] as number) : (sequence[0] as number) & (0x7f >> size);
  for (let index = 1; index < size; index += 1) {
    const byte = sequence[index] as number;
    if ((byte & 0xc0) !== 0x80) return false;
    point = (point << 6) | (byte & 0x3f);
  }
  const shortest = [0, 0, 0x80, 0x800, 0x10000][size] as number;
  return point >= shortest && point <= 0x10ffff && !(point >= 0xd800 && point <= 0xdfff);
}

const BASE64 = new Int8Array(128).fill(-1);
for (const [index, character] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
].entries())
  BASE64[character.charCodeAt(0)] = index;

/** Reads `.tiktoken` lines into one byte buffer, the offsets of its tokens and their hashes. */
class TiktokenReader {
  readonly #file: Uint8Array;
  readonly #bytes: Uint8Array;
  readonly #offsets: Uint32Array;
  readonly #hashes: Int32Array;
  #written = 0;
  #lines = 0;

  constructor(file: Uint8Array) {
    this.#file = file;
    this.#bytes = new Uint8Array(file.length);
    this.#offsets = new Uint32Array(Math.ceil(file.length / 4) + 2);
    this.#hashes = new Int32Array(Math.ceil(file.length / 4) + 1);
  }

  /**
   * Reads the line that starts at `start` (`base64 rank`), hashing the token's bytes as they are
   * decoded; returns where the next line starts.
   */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: runs once per token at load, before the JIT has compiled it, so it makes no call per byte
  readLine(start: number): number {
    const file = this.#file;
    const bytes = this.#bytes;
    let written = this.#written;
    let hash = 0;
    let bits = 0;
    let bitCount = 0;
    let index = start;
    for (let byte = file[index]; byte !== 0x20; byte = file[++index]) {
      const value = byte === undefined ? -1 : (BASE64[byte] ?? -1);
      if (value < 0) {
        if (byte !== 0x3d) throw damaged(this.#lines);
        continue;
      }
      bits = ((bits << 6) | value) & 0xffffff;
      bitCount += 6;
      if (bitCount >= 8) {
        bitCount -= 8;
        const decoded = (bits >>> bitCount) & 0xff;
        bytes[written++] = decoded;
        hash = (Math.imul(hash, BASE) + decoded + 1) | 0;
      }
    }
    const space = index;
    let rank = 0;
    for (index += 1; index < file.length && file[index] !== 0x0a; index += 1) {
      const digit = (file[index] as number) - 0x30;
      if (digit < 0 || digit > 9) throw damaged(this.#lines);
      rank = rank * 10 + digit;
    }
    if (rank !== this.#lines || index === space + 1) throw damaged(this.#lines);
    this.#hashes[this.#lines] = hash;
    this.#lines += 1;
    this.#offsets[this.#lines] = written;
    this.#written = written;
    return index + 1;
  }

  tokens(): { readonly bytes: Uint8Array; readonly offsets: Uint32Array; readonly hashes: Int32Array } {
    return {
      bytes: this.#bytes.slice(0, this.#written),
      offsets: this.#offsets.slice(0, this.#lines + 1),
      hashes: this.#hashes.subarray(0, this.#lines),
    };
  }
}

function damaged(line: number): ContextError {
  return new ContextError({
    code: 'TOKENIZER_UNAVAILABLE',
    message: `Line ${line + 1} of the .tiktoken vocabulary is not "<base64> ${line}"; the file is damaged: reinstall gpt-tokenizer.`,
  });
}
