import { test } from '@fast-check/vitest';
import * as fc from 'fast-check';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { o200kPieceEnd } from './o200k-pre-tokenizer.js';
import { generateMixedCorpus } from './token-corpus.js';

/** The reference: gpt-tokenizer's own o200k split regex. */
function regexPieces(text: string): string[] {
  return Array.from(text.matchAll(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu')), (match) => match[0]);
}

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = o200kPieceEnd(text, start);
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** Characters at the edges of every alternative of the regex and of its backtracking. */
const TRICKY = [
  ...'aZé ÉǅʰǈQsSlLvVeErRdDmMtT\'"/()[]{}.,;:!?-_<>=+*#@$%&|\\`~^01295٣Ⅻ½',
  ...['中', '文', 'あ', 'ア', '한', 'ا', 'й', 'Ж', 'ก', '\u0301', '\u0903', '\u20dd', '\u200d', '\ufe0f'],
  ...[' ', '\t', '\n', '\r', '\u000b', '\u000c', '\u00a0', '\u1680', '\u2000', '\u2028', '\u2029', '\u3000'],
  ...['\ufeff', '\u0085', '\u180e', '\u200b', '😀', '👍', '🏽', '🇫', '𝐀', '𝐚', '𝟎', '𠀀', '\ud800', '\udc00'],
];
const trickyText = fc.array(fc.constantFrom(...TRICKY), { maxLength: 24 }).map((units) => units.join(''));

describe('o200kPieceEnd', () => {
  test.prop([trickyText], { numRuns: 3000 })('splits like the o200k regex on tricky text', (text) => {
    expect(pieces(text)).toEqual(regexPieces(text));
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 40 })], { numRuns: 1000 })(
    'splits like the o200k regex on any code units, lone surrogates included',
    (text) => {
      expect(pieces(text)).toEqual(regexPieces(text));
    },
  );

  it('splits every code point like the regex, each in front of every kind of neighbour', () => {
    const neighbours = [' ', 'a', 'A', '1', '!', '\n', "'s", 'é', '\u0301', '中', ' x'];
    const chunks: string[] = [];
    for (let point = 0; point <= 0x10ffff; point += 1) {
      const neighbour = neighbours[point % neighbours.length] as string;
      chunks.push(String.fromCodePoint(point), neighbour);
    }
    const text = chunks.join('');
    const expected = regexPieces(text);
    const actual = pieces(text);
    expect(actual.length).toBe(expected.length);
    expect(actual.join('\u0000') === expected.join('\u0000')).toBe(true);
  });

  it('splits a 2 MB generated corpus of every content class like the regex', () => {
    for (const document of generateMixedCorpus({ seed: 11, bytes: 2_000_000 })) {
      const actual = pieces(document);
      const expected = regexPieces(document);
      if (actual.length !== expected.length || actual.some((piece, index) => piece !== expected[index])) {
        expect(actual).toEqual(expected);
      }
    }
  });

  it('keeps contractions, case runs and the newline rules of o200k', () => {
    expect(pieces("We'LL see O'Neil's HTTPServer")).toEqual([
      "We'LL",
      ' see',
      ' O',
      "'Neil's",
      ' HTTPServer',
    ]);
    expect(pieces('getElementById(x)')).toEqual(['get', 'Element', 'By', 'Id', '(x', ')']);
    expect(pieces('1234567 abc\n\n  def  \r\n')).toEqual([
      '123',
      '456',
      '7',
      ' abc',
      '\n\n',
      ' ',
      ' def',
      '  \r\n',
    ]);
    expect(pieces('a ,/\n b')).toEqual(['a', ' ,/\n', ' b']);
  });
});
