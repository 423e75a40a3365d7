import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ContextError } from '../core/errors.js';
import { BpeRanks, NO_RANK } from './bpe-ranks.js';
import { BytePairMerger } from './byte-pair-merge.js';
import { cl100kPieceEnd } from './cl100k-pre-tokenizer.js';
import { o200kPieceEnd } from './o200k-pre-tokenizer.js';
import { PieceCountMemo } from './piece-count-memo.js';
import type { TiktokenEncodingName } from './tiktoken-encoding.js';

/** Scratch buffers grown past this many bytes for one piece are released after it. */
const MAX_KEPT_SCRATCH = 1 << 16;

/** What differs between the encodings: how text is split into pieces, and the special tokens. */
type EncodingSpec = {
  readonly pieceEnd: (text: string, start: number) => number;
  /** Special token ids and their text, for `decode` (`encode` never produces them: all text is plain). */
  readonly special: ReadonlyMap<number, string>;
};

const ENCODINGS: Readonly<Record<TiktokenEncodingName, EncodingSpec>> = {
  o200k_base: {
    pieceEnd: o200kPieceEnd,
    special: new Map([
      [199999, '<|endoftext|>'],
      [200000, '<|fim_prefix|>'],
      [200001, '<|fim_middle|>'],
      [200002, '<|fim_suffix|>'],
      [200003, '<|im_start|>'],
      [200004, '<|im_end|>'],
      [200005, '<|im_sep|>'],
      [200006, '<|endofprompt|>'],
    ]),
  },
  cl100k_base: {
    pieceEnd: cl100kPieceEnd,
    special: new Map([
      [100257, '<|endoftext|>'],
      [100258, '<|fim_prefix|>'],
      [100259, '<|fim_middle|>'],
      [100260, '<|fim_suffix|>'],
      [100264, '<|im_start|>'],
      [100265, '<|im_end|>'],
      [100266, '<|im_sep|>'],
      [100276, '<|endofprompt|>'],
    ]),
  },
};

/** Each encoding's encoder, loaded once per process (it is immutable but for its memo). */
const shared = new Map<TiktokenEncodingName, Promise<BpeEncoder>>();

/**
 * An OpenAI encoding (o200k_base: GPT-4o, GPT-4.1, GPT-5, o-series; cl100k_base: GPT-4, GPT-3.5)
 * without a string per token: the pre-tokenizer splits the text (o200k_base's is hand-written, with
 * no regex), a piece seen before is answered from a memo, and a new piece is byte-pair merged over
 * flat rank tables, counting parts without building token arrays. Counts and token ids are
 * identical to gpt-tokenizer 4.0.0's (differential tests over 10 MB of mixed text); every text is
 * plain text, so `<|endoftext|>` is counted as the characters it is.
 *
 * The vocabulary is read from the `.tiktoken` file gpt-tokenizer ships (`gpt-tokenizer/data/…`),
 * which loads several times faster than its JavaScript module.
 * @internal
 */
export class BpeEncoder {
  /** The encoding's name. */
  readonly encoding: TiktokenEncodingName;
  readonly #spec: EncodingSpec;
  readonly #ranks: BpeRanks;
  readonly #merger: BytePairMerger;
  readonly #memo = new PieceCountMemo();
  #bytes = new Uint8Array(1024);
  #isWellFormed = true;

  constructor(encoding: TiktokenEncodingName, ranks: BpeRanks) {
    this.encoding = encoding;
    this.#spec = ENCODINGS[encoding];
    this.#ranks = ranks;
    this.#merger = new BytePairMerger(ranks);
  }

  /**
   * The encoder over the vocabulary gpt-tokenizer ships (`gpt-tokenizer/data/<encoding>.tiktoken`),
   * read on the first call and shared by every later one.
   * @throws ContextError `DEPENDENCY_MISSING` when gpt-tokenizer (or the file) is missing,
   * `TOKENIZER_UNAVAILABLE` when the file is damaged.
   */
  static load(encoding: TiktokenEncodingName): Promise<BpeEncoder> {
    let loading = shared.get(encoding);
    if (loading === undefined) {
      loading = BpeEncoder.fromFile(encoding, () =>
        fileURLToPath(import.meta.resolve(`gpt-tokenizer/data/${encoding}.tiktoken`)),
      ).catch((error: unknown) => {
        shared.delete(encoding);
        throw error;
      });
      shared.set(encoding, loading);
    }
    return loading;
  }

  /**
   * Reads the vocabulary of `encoding` from a `.tiktoken` file (a path, or a function that finds it).
   * @throws ContextError `DEPENDENCY_MISSING` when the file cannot be found or read,
   * `TOKENIZER_UNAVAILABLE` when it is damaged.
   */
  static async fromFile(encoding: TiktokenEncodingName, path: string | (() => string)): Promise<BpeEncoder> {
    let file: Uint8Array;
    try {
      file = await readFile(typeof path === 'string' ? path : path());
    } catch (error) {
      throw new ContextError({
        code: 'DEPENDENCY_MISSING',
        message:
          `Could not read ${encoding}'s vocabulary (${typeof path === 'string' ? path : `gpt-tokenizer/data/${encoding}.tiktoken`}): ` +
          `install gpt-tokenizer (npm install gpt-tokenizer), or pass { encoder: await import('gpt-tokenizer/encoding/${encoding}') } to new TiktokenTokenCounter() where the package's files cannot be read.`,
        cause: error,
      });
    }
    return new BpeEncoder(encoding, BpeRanks.fromTiktoken(file));
  }

  /** The number of tokens of `text`. */
  countTokens(text: string): number {
    let count = 0;
    for (let start = 0; start < text.length; ) {
      const end = this.#spec.pieceEnd(text, start);
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
      const end = this.#spec.pieceEnd(text, start);
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
      const special = this.#spec.special.get(token);
      if (special === undefined && !(Number.isInteger(token) && token >= 0 && token < this.#ranks.size)) {
        throw new ContextError({
          code: 'INVALID_INPUT',
          message: `Token id ${token} is not in ${this.encoding} (ids 0–${this.#ranks.size - 1} and its special tokens ${[...this.#spec.special.keys()].join(', ')}).`,
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
