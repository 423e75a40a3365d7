/**
 * cl100k_base's pre-tokenizer: the end of the piece that starts at `start`. The encoding splits text
 * with tiktoken's pattern
 *
 * ```
 * '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s
 * ```
 * matched with JavaScript's backtracking semantics, as gpt-tokenizer matches it (its possessive
 * quantifiers dropped; the contractions spelled out, since a JavaScript regex has no inline flags).
 * Every character starts a piece (the last alternatives take any space, the fourth anything else that
 * is not a letter or a number), so pieces follow one another without a gap. The regex is sticky: one
 * match at `start`, never a search. The differential tests compare counts with gpt-tokenizer's.
 * @internal
 */
const PIECE = new RegExp(
  [
    "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])",
    '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+',
    '\\p{N}{1,3}',
    ' ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*',
    '\\s+$',
    '\\s*[\\r\\n]',
    '\\s+(?!\\S)',
    '\\s',
  ].join('|'),
  'uy',
);

/** The end (exclusive) of the cl100k_base piece starting at `start` (< `text.length`). */
export function cl100kPieceEnd(text: string, start: number): number {
  PIECE.lastIndex = start;
  // Every code point matches one of the alternatives (see above); a miss would be a bug, and one
  // code unit as its own piece keeps the count going rather than looping.
  return PIECE.exec(text) === null ? start + 1 : PIECE.lastIndex;
}
