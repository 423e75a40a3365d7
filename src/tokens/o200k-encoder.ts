import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ContextError } from '../core/errors.js';
import { BpeRanks, NO_RANK } from './bpe-ranks.js';
import { BytePairMerger } from './byte-pair-merge.js';
import { o200kPieceEnd } from './o200k-pre-tokenizer.js';
import { PieceCountMemo } from './piece-count-memo.js';

/** Scratch buffers grown past this many bytes for one piece are released after it. */
const MAX_KEPT_SCRATCH = 1 << 16;

/** o200k_base's special tokens, for `decode` (`encode` never produces them: all text is plain). */
const SPECIAL_TOKENS = new Map<number, string>([
  [199999, '<|endoftext|>'],
  [200000, '<|fim_prefix|>'],
  [200001, '<|fim_middle|>'],
  [200002, '<|fim_suffix|>'],
  [200003, '<|im_start|>'],
  [200004, '<|im_end|>'],
  [200005, '<|im_sep|>'],
  [200006, '<|endofprompt|>'],
]);

/** The encoder over gpt-tokenizer's file, loaded once per process (it is immutable but for its memo). */
let shared: Promise<O200kEncoder> | undefined;

/**
 * o200k_base (GPT-4o, GPT-4.1, GPT-5, o-series) without a regex or a string per token: the
 * hand-written pre-tokenizer splits the text, a piece seen before is answered from a memo, and a
 * new piece is byte-pair merged over flat rank tables, counting parts without building token arrays.
 * Counts and token ids are identical to gpt-tokenizer 4.0.0's (differential tests over 10 MB of mixed
 * text); every text is plain text, so `<|endoftext|>` is counted as the characters it is.
 *
 * The vocabulary is read from the `.tiktoken` file gpt-tokenizer ships (`gpt-tokenizer/data/…`),
 * which loads several times faster than its JavaScript module.
 * @internal
 */
export class O200kEncoder {
  readonly #ranks: BpeRanks;
  readonly #merger: BytePairMerger;
  readonly #memo = new PieceCountMemo();
  #bytes = new Uint8Array(1024);
  #isWellFormed = true;

  constructor(ranks: BpeRanks) {
    this.#ranks = ranks;
    this.#merger = new BytePairMerger(ranks);
  }

  /**
   * The encoder over the vocabulary gpt-tokenizer ships (`gpt-tokenizer/data/o200k_base.tiktoken`),
   * read on the first call and shared by every later one.
   * @throws ContextError `DEPENDENCY_MISSING` when gpt-tokenizer (or the file) is missing,
   * `TOKENIZER_UNAVAILABLE` when the file is damaged.
   */
  static load(): Promise<O200kEncoder> {
    shared ??= O200kEncoder.fromFile(() =>
      fileURLToPath(import.meta.resolve('gpt-tokenizer/data/o200k_base.tiktoken')),
    ).catch((error: unknown) => {
      shared = undefined;
      throw error;
    });
    return shared;
  }

  /**
   * Reads the vocabulary from a `.tiktoken` file (a path, or a function that finds it).
   * @throws ContextError `DEPENDENCY_MISSING` when the file cannot be found or read,
   * `TOKENIZER_UNAVAILABLE` when it is damaged.
   */
  static async fromFile(path: string | (() => string)): Promise<O200kEncoder> {
    let file: Uint8Array;
    try {
      file = await readFile(typeof path === 'string' ? path : path());
    } catch (error) {
      throw new ContextError({
        code: 'DEPENDENCY_MISSING',
        message:
          `Could not read o200k_base's vocabulary (${typeof path === 'string' ? path : 'gpt-tokenizer/data/o200k_base.tiktoken'}): ` +
          "install gpt-tokenizer (npm install gpt-tokenizer), or pass { encoder: await import('gpt-tokenizer/encoding/o200k_base') } to new TiktokenTokenCounter() where the package's files cannot be read.",
        cause: error,
      });
    }
    return new O200kEncoder(BpeRanks.fromTiktoken(file));
  }

  /** The number of tokens of `text`. */
  countTokens(text: string): number {
    let count = 0;
    for (let start = 0; start < text.length; ) {
      const end = o200kPieceEnd(text, start);
      if (end - start === 1 && text.charCodeAt(start) < 0x80) count += 1;
      else {
        let known = this.#memo.lookup(text, start, end);
        if (known < 0) {
          known = this.#countPiece(text, start, end);
          this.#memo.remember(known);
        }
        count += known;
      }
      start = end;
    }
    return count;
  }

  /** The token ids of `text`. */
  encode(text: string): number[] {
    const tokens: number[] = [];
    for (let start = 0; start < text.length; ) {
      const end = o200kPieceEnd(text, start);
      const length = this.#toUtf8(text, start, end);
      const whole = this.#isWellFormed ? this.#ranks.exactRankOf(this.#bytes, length) : NO_RANK;
      if (whole !== NO_RANK) tokens.push(whole);
      else {
        this.#merger.merge(this.#bytes, length);
        this.#merger.ranksOfParts(tokens);
      }
      if (length > MAX_KEPT_SCRATCH) this.#shrink();
      start = end;
    }
    return tokens;
  }

  /**
   * The text of token ids (UTF-8; a byte-order mark is kept).
   * @throws ContextError `INVALID_INPUT` for an id that is not an o200k_base token.
   */
  decode(tokens: Iterable<number>): string {
    const chunks: Uint8Array[] = [];
    let length = 0;
    const encoder = new TextEncoder();
    for (const token of tokens) {
      const special = SPECIAL_TOKENS.get(token);
      if (special === undefined && !(Number.isInteger(token) && token >= 0 && token < this.#ranks.size)) {
        throw new ContextError({
          code: 'INVALID_INPUT',
          message: `Token id ${token} is not in o200k_base (ids 0–${this.#ranks.size - 1} and 199999–200006).`,
        });
      }
      const bytes = special === undefined ? this.#ranks.tokenBytes(token) : encoder.encode(special);
      chunks.push(bytes);
      length += bytes.length;
    }
    const joined = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(joined);
  }

  // biome-ignore lint/complexity/useMaxParams: a piece is a range of the text, to avoid a substring per piece
  #countPiece(text: string, start: number, end: number): number {
    const length = this.#toUtf8(text, start, end);
    const isToken = this.#isWellFormed && this.#ranks.exactRankOf(this.#bytes, length) !== NO_RANK;
    const count = isToken ? 1 : this.#merger.merge(this.#bytes, length);
    if (length > MAX_KEPT_SCRATCH) this.#shrink();
    return count;
  }

  /** Lets go of scratch buffers grown for a huge piece. */
  #shrink(): void {
    this.#bytes = new Uint8Array(1024);
    this.#merger.shrink();
  }

  /**
   * Writes the UTF-8 of `text[start…end)` into the scratch buffer, then a 0 (the merger's sentinel),
   * and returns its length. A lone surrogate becomes U+FFFD, as `TextEncoder` writes it;
   * `#isWellFormed` says whether there was one.
   */
  // biome-ignore lint/complexity/useMaxParams: encodes a range of the text, to avoid a substring per piece
  #toUtf8(text: string, start: number, end: number): number {
    if (this.#bytes.length <= (end - start) * 3) this.#bytes = new Uint8Array((end - start) * 3 + 1);
    const bytes = this.#bytes;
    let length = 0;
    let isWellFormed = true;
    for (let index = start; index < end; index += 1) {
      let code = text.charCodeAt(index);
      if (code < 0x80) {
        bytes[length++] = code;
        continue;
      }
      if (code < 0x800) {
        bytes[length++] = 0xc0 | (code >> 6);
        bytes[length++] = 0x80 | (code & 0x3f);
        continue;
      }
      if (code >= 0xd800 && code <= 0xdfff) {
        const low = text.charCodeAt(index + 1);
        if (code <= 0xdbff && index + 1 < end && low >= 0xdc00 && low <= 0xdfff) {
          code = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          index += 1;
          bytes[length++] = 0xf0 | (code >> 18);
          bytes[length++] = 0x80 | ((code >> 12) & 0x3f);
          bytes[length++] = 0x80 | ((code >> 6) & 0x3f);
          bytes[length++] = 0x80 | (code & 0x3f);
          continue;
        }
        code = 0xfffd;
        isWellFormed = false;
      }
      bytes[length++] = 0xe0 | (code >> 12);
      bytes[length++] = 0x80 | ((code >> 6) & 0x3f);
      bytes[length++] = 0x80 | (code & 0x3f);
    }
    bytes[length] = 0;
    this.#isWellFormed = isWellFormed;
    return length;
  }
}
