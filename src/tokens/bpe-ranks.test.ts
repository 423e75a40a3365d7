import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vocabulary from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { BpeRanks, hashBytes, NO_RANK } from './bpe-ranks.js';

const file = readFileSync(fileURLToPath(import.meta.resolve('gpt-tokenizer/data/o200k_base.tiktoken')));
const BOM = [0xef, 0xbb, 0xbf];

const isValidUtf8 = (bytes: Uint8Array): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('BpeRanks', () => {
  const ranks = BpeRanks.fromTiktoken(file);
  const utf8 = new TextEncoder();

  it("reads the .tiktoken file to the same tokens as gpt-tokenizer's JavaScript module, rank by rank", () => {
    expect(ranks.size).toBe(vocabulary.length);
    const mismatches: number[] = [];
    for (const [rank, entry] of vocabulary.entries()) {
      const expected = typeof entry === 'string' ? utf8.encode(entry) : Uint8Array.from(entry);
      const actual = ranks.tokenBytes(rank);
      if (actual.length !== expected.length || actual.some((byte, index) => byte !== expected[index]))
        mismatches.push(rank);
    }
    expect(mismatches).toEqual([]);
  });

  it('relies on what gpt-tokenizer stores as strings: valid UTF-8 that does not start with U+FEFF', () => {
    const startsWithBom = (bytes: Uint8Array) => BOM.every((byte, index) => bytes[index] === byte);
    for (const [rank, entry] of vocabulary.entries()) {
      const bytes = ranks.tokenBytes(rank);
      const isStringLike = isValidUtf8(bytes) && !startsWithBom(bytes);
      if (isStringLike !== (typeof entry === 'string')) expect([rank, entry]).toEqual([rank, 'string-like?']);
    }
  });

  it('finds every string token by its bytes, and no token that starts with U+FEFF', () => {
    for (const [rank, entry] of vocabulary.entries()) {
      const bytes = ranks.tokenBytes(rank);
      const found = ranks.exactRankOf(bytes, bytes.length);
      const reachable = typeof entry === 'string' || !isValidUtf8(bytes);
      if (found !== (reachable ? rank : NO_RANK))
        expect([rank, found]).toEqual([rank, reachable ? rank : NO_RANK]);
    }
  });

  it('looks a merged sequence that starts with U+FEFF up without it, as gpt-tokenizer does', () => {
    const piece = Uint8Array.from([...BOM, 0x23, 0]);
    const pair = Uint8Array.from([...BOM.slice(0, 2), 0]);
    expect(ranks.mergeRank(piece, 0, 4, hashBytes(piece, 0, 4))).toBe(vocabulary.indexOf('#'));
    expect(ranks.mergeRank(piece, 0, 3, hashBytes(piece, 0, 3))).toBe(NO_RANK);
    expect(ranks.mergeRank(piece, 0, 2, hashBytes(piece, 0, 2))).toBe(ranks.exactRankOf(pair, 2));
    expect(ranks.exactRankOf(pair, 2)).not.toBe(NO_RANK);
  });
});
