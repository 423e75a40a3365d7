/**
 * o200k_base's pre-tokenizer without a regular expression. The encoding splits text with
 *
 * ```
 * [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'s|'t|'re|'ve|'m|'ll|'d)?   (1)
 * |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'s|…)?                   (2)
 * |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+                                              (3–7)
 * ```
 * (contractions case-insensitive), matched with JavaScript's backtracking semantics. This file
 * computes the same pieces in one forward pass: every alternative and every backtracking step of
 * that regex has a closed form over runs of character classes (worked out beside each function).
 * The classes come from the runtime's own `\p{…}` regexes, one 256-code-point block at a time on
 * first use, so the split follows the runtime's Unicode version exactly as the regex does. The
 * differential tests compare it with the regex itself.
 * @internal
 */

/** Class flags of a code point; 0 in the table means "block not classified yet". */
const UPPER = 1; // in [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const LOWER = 2; // in [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const PREFIX = 4; // in [^\r\n\p{L}\p{N}]
const SYMBOL = 8; // in [^\s\p{L}\p{N}]
const SPACE = 16; // in \s
const NUMBER = 32; // in \p{N}
const LINE_BREAK = 64; // \r or \n
const CLASSIFIED = 128;

const CLASSES = /^(?:([\p{Lu}\p{Lt}])|(\p{Ll})|([\p{Lm}\p{Lo}])|(\p{M})|(\p{N})|([\r\n])|(\s))$/u;
const GROUP_FLAGS = [
  UPPER,
  LOWER,
  UPPER | LOWER,
  UPPER | LOWER | PREFIX | SYMBOL,
  NUMBER,
  SPACE | LINE_BREAK,
  SPACE | PREFIX,
];
const OTHER_FLAGS = PREFIX | SYMBOL;

/** Flags of every code point (1.1 MB, zero-filled and paged in lazily by the OS). */
const table = new Uint8Array(0x110000);

function classifyBlock(codePoint: number): number {
  const first = codePoint & ~0xff;
  for (let point = first; point < first + 0x100; point += 1) {
    const match = CLASSES.exec(String.fromCodePoint(point));
    let flags = OTHER_FLAGS;
    if (match !== null) {
      for (let group = 1; group < match.length; group += 1)
        if (match[group] !== undefined) flags = GROUP_FLAGS[group - 1] ?? OTHER_FLAGS;
    }
    table[point] = flags | CLASSIFIED;
  }
  return table[codePoint] ?? OTHER_FLAGS;
}

/** Flags of the code point at `index`, plus 256 when it is a surrogate pair (two code units). */
function flagsAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      const point = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
      return ((table[point] as number) || classifyBlock(point)) | 256;
    }
  }
  return (table[code] as number) || classifyBlock(code);
}

/** The end (exclusive, in code units) of the o200k piece that starts at `start` (< text.length). */
export function o200kPieceEnd(text: string, start: number): number {
  const letters = lettersEnd(text, start);
  if (letters > 0) return letters;
  const first = flagsAt(text, start);
  if ((first & NUMBER) !== 0) return numberEnd(text, start + 1 + (first >>> 8));
  const symbols = symbolsEnd(text, start);
  return symbols > 0 ? symbols : spaceEnd(text, start);
}

/**
 * Alternatives (1) then (2), each first with the optional prefix taken, then without: the regex
 * tries (1) with both choices of `P?` before it tries (2).
 */
function lettersEnd(text: string, start: number): number {
  const first = flagsAt(text, start);
  const next = start + 1 + (first >>> 8);
  const hasPrefix = (first & PREFIX) !== 0 && next < text.length;
  let end = hasPrefix ? lowerEnd(text, next) : -1;
  if (end < 0) end = lowerEnd(text, start);
  if (end < 0 && hasPrefix) end = upperEnd(text, next);
  if (end < 0) end = upperEnd(text, start);
  return end;
}

/**
 * `U* W+ C?` from `from` (U: upper set, W: lower set). `U*` takes the longest run of U; if the next
 * code point is in W (then it is Ll), `W+` takes the run of W after it. Otherwise `U*` backtracks
 * to the last code point of its run that is also in W (Lm, Lo, M), which `W+` takes alone. No such
 * code point: no match (-1).
 */
function lowerEnd(text: string, from: number): number {
  let index = from;
  let lastLowerEnd = -1;
  while (index < text.length) {
    const flags = flagsAt(text, index);
    if ((flags & UPPER) === 0) break;
    index += 1 + (flags >>> 8);
    if ((flags & LOWER) !== 0) lastLowerEnd = index;
  }
  if (index < text.length && (flagsAt(text, index) & LOWER) !== 0) {
    return contractionEnd(text, runEnd(text, index, LOWER));
  }
  return lastLowerEnd < 0 ? -1 : contractionEnd(text, lastLowerEnd);
}

/** `U+ W* C?` from `from`: greedy, and nothing after it can fail, so no backtracking. */
function upperEnd(text: string, from: number): number {
  const upper = runEnd(text, from, UPPER);
  return upper === from ? -1 : contractionEnd(text, runEnd(text, upper, LOWER));
}

/** The end of the run of code points that all have `flag`, from `from`. */
// biome-ignore lint/complexity/useMaxParams: called for every run of the text; no options object on this path
function runEnd(text: string, from: number, flag: number): number {
  let index = from;
  while (index < text.length) {
    const flags = flagsAt(text, index);
    if ((flags & flag) === 0) break;
    index += 1 + (flags >>> 8);
  }
  return index;
}

/** `(?:'s|'t|'re|'ve|'m|'ll|'d)?`, case-insensitive, at `index`. */
function contractionEnd(text: string, index: number): number {
  if (text.charCodeAt(index) !== 0x27) return index;
  const letter = text.charCodeAt(index + 1) | 0x20;
  if (letter === 0x73 || letter === 0x74 || letter === 0x64 || letter === 0x6d) return index + 2;
  const second = text.charCodeAt(index + 2) | 0x20;
  if (letter === 0x6c && second === 0x6c) return index + 3;
  if ((letter === 0x76 || letter === 0x72) && second === 0x65) return index + 3;
  return index;
}

/** `\p{N}{1,3}`: the first number is already taken; up to two more code points. */
function numberEnd(text: string, from: number): number {
  let index = from;
  for (let count = 1; count < 3 && index < text.length; count += 1) {
    const flags = flagsAt(text, index);
    if ((flags & NUMBER) === 0) break;
    index += 1 + (flags >>> 8);
  }
  return index;
}

/** ` ?[^\s\p{L}\p{N}]+[\r\n/]*`; -1 when it does not match at `start`. */
function symbolsEnd(text: string, start: number): number {
  const from = text.charCodeAt(start) === 0x20 ? start + 1 : start;
  if (from >= text.length || (flagsAt(text, from) & SYMBOL) === 0) return -1;
  let index = runEnd(text, from, SYMBOL);
  for (let code = text.charCodeAt(index); code === 0x0a || code === 0x0d || code === 0x2f; ) {
    index += 1;
    code = text.charCodeAt(index);
  }
  return index;
}

/**
 * Alternatives (5) to (7) on a run of whitespace (every `\s` is one code unit): `\s*[\r\n]+` ends
 * after the run's last line break; else `\s+(?!\S)` takes the run to the end of the text, or all of
 * it but its last code unit; else `\s+` takes the single whitespace.
 */
function spaceEnd(text: string, start: number): number {
  let index = start;
  let lastBreak = -1;
  while (index < text.length) {
    const flags = flagsAt(text, index);
    if ((flags & SPACE) === 0) break;
    if ((flags & LINE_BREAK) !== 0) lastBreak = index;
    index += 1;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (index === text.length || index - start === 1) return index;
  return index - 1;
}
