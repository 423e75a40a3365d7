/**
 * The features the calibrated estimator counts in one pass over a text: an approximation of
 * o200k's pre-tokenizer for ASCII (word pieces by length and shape, digit groups, punctuation runs,
 * whitespace pieces) and per-script character counts for the rest (Han, kana, Hangul, Cyrillic and
 * Greek, Arabic and Hebrew, Indic, Thai, accented Latin, combining marks, emoji and other astral
 * code points). The estimate is the dot product of these counts with coefficients fitted offline
 * against exact o200k counts (`scripts/fit-estimator.ts`), so the runtime and the fit share this
 * one definition.
 * @internal
 */

/** Word pieces up to this length have their own feature; longer ones cost a base plus per letter. */
const SHORT_WORD_LENGTH = 4;
/** Lengths past which each more letter has its own cost (a piecewise-linear cost of length). */
const WORD_KNOTS = [4, 7, 10, 14];
/** Longest punctuation run with its own feature. */
const MAX_PUNCTUATION_RUN = 4;

/** Feature names, in the order of the counts array. */
export const ESTIMATE_FEATURES: readonly string[] = Object.freeze([
  ...Array.from({ length: SHORT_WORD_LENGTH }, (_, index) => `word:${index + 1}`),
  'word:long',
  ...WORD_KNOTS.map((knot) => `word:letters-over-${knot}`),
  'word:no-space-prefix',
  'word:symbol-prefix',
  'word:capitalised',
  'word:upper-letters',
  'digits:groups',
  ...Array.from({ length: MAX_PUNCTUATION_RUN }, (_, index) => `punctuation:${index + 1}`),
  'punctuation:long-chars',
  'punctuation:repeated-chars',
  'space:pieces',
  'space:chars',
  'newline:pieces',
  'newline:chars',
  'script:runs',
  'han',
  'kana',
  'hangul',
  'cjk-punctuation',
  'latin-accented',
  'cyrillic-greek',
  'arabic-hebrew',
  'indic',
  'thai',
  'other-letters',
  'marks',
  'general-punctuation',
  'symbols',
  'astral',
  'other',
]);

const INDEX = new Map(ESTIMATE_FEATURES.map((name, index) => [name, index]));
const at = (name: string): number => INDEX.get(name) ?? -1;
const WORD_LONG = at('word:long');
const WORD_LETTERS = at(`word:letters-over-${WORD_KNOTS[0]}`);
const WORD_NO_SPACE = at('word:no-space-prefix');
const WORD_SYMBOL_PREFIX = at('word:symbol-prefix');
const WORD_CAPITALISED = at('word:capitalised');
const WORD_UPPER = at('word:upper-letters');
const DIGIT_GROUPS = at('digits:groups');
const PUNCTUATION = at('punctuation:1');
const PUNCTUATION_LONG = at('punctuation:long-chars');
const PUNCTUATION_REPEATED = at('punctuation:repeated-chars');
const SPACE_PIECES = at('space:pieces');
const SPACE_CHARS = at('space:chars');
const NEWLINE_PIECES = at('newline:pieces');
const NEWLINE_CHARS = at('newline:chars');
const SCRIPT_RUNS = at('script:runs');

/** ASCII classes. */
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;
const SYMBOL = 6;
const ASCII = new Uint8Array(128).map((_, code) => {
  const character = String.fromCharCode(code);
  if (/[a-z]/.test(character)) return LOWER;
  if (/[A-Z]/.test(character)) return UPPER;
  if (/[0-9]/.test(character)) return DIGIT;
  if (character === '\n' || character === '\r') return NEWLINE;
  return /\s/.test(character) ? SPACE : SYMBOL;
});

/** Non-ASCII ranges and their feature; `true` for letters (a run of one script is one piece). */
const RANGES: readonly (readonly [number, number, string, boolean])[] = [
  [0x0080, 0x00bf, 'other', false],
  [0x00c0, 0x024f, 'latin-accented', true],
  [0x0250, 0x02ff, 'other-letters', true],
  [0x0300, 0x036f, 'marks', true],
  [0x0370, 0x052f, 'cyrillic-greek', true],
  [0x0530, 0x058f, 'other-letters', true],
  [0x0590, 0x06ff, 'arabic-hebrew', true],
  [0x0700, 0x08ff, 'other-letters', true],
  [0x0900, 0x0dff, 'indic', true],
  [0x0e00, 0x0e7f, 'thai', true],
  [0x0e80, 0x10ff, 'other-letters', true],
  [0x1100, 0x11ff, 'hangul', true],
  [0x1200, 0x1fff, 'other-letters', true],
  [0x2000, 0x206f, 'general-punctuation', false],
  [0x2070, 0x2bff, 'symbols', false],
  [0x3000, 0x303f, 'cjk-punctuation', false],
  [0x3040, 0x30ff, 'kana', true],
  [0x3400, 0x4dbf, 'han', true],
  [0x4e00, 0x9fff, 'han', true],
  [0xac00, 0xd7af, 'hangul', true],
  [0xf900, 0xfaff, 'han', true],
  [0xfe00, 0xfe0f, 'marks', true],
  [0xff00, 0xffef, 'cjk-punctuation', false],
];
/** Per BMP code point: feature index + 1 (0: other), +128 for letters; ACCENTED and BLANK are special. */
const BMP = new Uint8Array(0x10000);
const ACCENTED = 254;
const BLANK = 255;
const LETTER_FLAG = 128;
for (const [first, last, feature, isLetter] of RANGES)
  BMP.fill(at(feature) + 1 + (isLetter ? LETTER_FLAG : 0), first, last + 1);
BMP.fill(ACCENTED, 0xc0, 0x250);
BMP[0xd7] = at('other') + 1;
BMP[0xf7] = at('other') + 1;
for (const code of [0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]) BMP[code] = BLANK;
BMP.fill(BLANK, 0x2000, 0x200b);
const OTHER = at('other');
const ASTRAL = at('astral');
const HAN = at('han');
const ACCENTED_LATIN = at('latin-accented');

/** Adds the features of `text` to `counts` (length {@link ESTIMATE_FEATURES}`.length`). */
export function countEstimateFeatures(text: string, counts: Float64Array): void {
  const scanner = new FeatureScanner(text, counts);
  for (let index = 0; index < text.length; ) index = scanner.piece(index);
}

const isAsciiLetter = (kind: number): boolean => kind === LOWER || kind === UPPER;

/** The class of a code unit inside a word: LOWER, UPPER (accented Latin counts as LOWER) or 0. */
const letterKind = (code: number): number =>
  code < 0x80 ? (ASCII_LETTERS[code] as number) : BMP[code] === ACCENTED ? LOWER : 0;
const ASCII_LETTERS = ASCII.map((kind) => (isAsciiLetter(kind) ? kind : 0));

/** The class of a code unit inside a whitespace run: NEWLINE, SPACE or 0. */
const spaceKind = (code: number): number => {
  if (code < 0x80) {
    const kind = ASCII[code] as number;
    return kind === NEWLINE || kind === SPACE ? kind : 0;
  }
  return BMP[code] === BLANK ? SPACE : 0;
};

/**
 * Walks a text piece by piece, in the spirit of o200k's pre-tokenizer: a word (with the space or
 * symbol before it as its prefix), a digit run, a punctuation run, a whitespace run, or a run of one
 * non-ASCII script. Each method consumes one piece with a tight loop and returns where the next
 * one starts.
 */
class FeatureScanner {
  readonly #text: string;
  readonly #counts: Float64Array;

  constructor(text: string, counts: Float64Array) {
    this.#text = text;
    this.#counts = counts;
  }

  piece(start: number): number {
    const code = this.#text.charCodeAt(start);
    if (code >= 0x80) return this.#nonAscii(start, code);
    const kind = ASCII[code] as number;
    if (isAsciiLetter(kind)) return this.#word(start, 0);
    if (kind === DIGIT) return this.#digits(start);
    return kind === NEWLINE ? this.#whitespace(start) : this.#prefixed(start, kind);
  }

  /** At a space or symbol: the prefix of a word or script run that follows, else its own piece. */
  #prefixed(start: number, kind: number): number {
    // Typed arrays are only read in bounds: an out-of-bounds read deoptimises the whole scan.
    const next = start + 1 < this.#text.length ? this.#text.charCodeAt(start + 1) : -1;
    const nextKind = next >= 0 && next < 0x80 ? (ASCII[next] as number) : 0;
    const nextEntry = next >= 0x80 ? (BMP[next] as number) : 0;
    if (isAsciiLetter(nextKind) || nextEntry === ACCENTED)
      return this.#word(start + 1, kind === SPACE ? 1 : 2);
    if ((nextEntry & LETTER_FLAG) !== 0 && nextEntry !== BLANK) return this.#nonAscii(start + 1, next);
    const isSymbolRun = kind === SYMBOL || (this.#text.charCodeAt(start) === 0x20 && nextKind === SYMBOL);
    return isSymbolRun ? this.#punctuation(start) : this.#whitespace(start);
  }

  /** A word piece: ASCII and accented Latin letters, ending where a lower-case letter meets a capital. */
  #word(start: number, prefix: number): number {
    const text = this.#text;
    const counts = this.#counts;
    let index = start;
    let upper = 0;
    let isLastLower = false;
    for (; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      const kind = letterKind(code);
      if (kind === 0 || (kind === UPPER && isLastLower)) break;
      if (kind === UPPER) upper += 1;
      else if (code >= 0x80) (counts[ACCENTED_LATIN] as number) += 1;
      isLastLower = kind === LOWER;
    }
    this.#wordLength(index - start);
    if (prefix === 0) (counts[WORD_NO_SPACE] as number) += 1;
    else if (prefix === 2) (counts[WORD_SYMBOL_PREFIX] as number) += 1;
    if (upper > 0) (counts[WORD_CAPITALISED] as number) += 1;
    if (upper > 1) (counts[WORD_UPPER] as number) += upper;
    return index;
  }

  #wordLength(length: number): void {
    const counts = this.#counts;
    if (length <= SHORT_WORD_LENGTH) (counts[length - 1] as number) += 1;
    else {
      (counts[WORD_LONG] as number) += 1;
      for (let knot = 0; knot < WORD_KNOTS.length; knot += 1) {
        const over = length - (WORD_KNOTS[knot] as number);
        if (over <= 0) break;
        (counts[WORD_LETTERS + knot] as number) += over;
      }
    }
  }

  #digits(start: number): number {
    let index = start + 1;
    for (; index < this.#text.length; index += 1) {
      const code = this.#text.charCodeAt(index);
      if (code >= 0x80 || ASCII[code] !== DIGIT) break;
    }
    (this.#counts[DIGIT_GROUPS] as number) += Math.ceil((index - start) / 3);
    return index;
  }

  /** ` ?[symbols]+[\r\n/]*` over ASCII symbols. */
  #punctuation(start: number): number {
    const text = this.#text;
    let index = text.charCodeAt(start) === 0x20 ? start + 1 : start;
    const first = text.charCodeAt(index);
    let isUniform = true;
    const from = index;
    for (; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code >= 0x80 || ASCII[code] !== SYMBOL) break;
      if (code !== first) isUniform = false;
    }
    const run = index - from;
    for (
      let code = text.charCodeAt(index);
      code === 0x0a || code === 0x0d || code === 0x2f;
      code = text.charCodeAt(index)
    )
      index += 1;
    const counts = this.#counts;
    (counts[PUNCTUATION + Math.min(run, MAX_PUNCTUATION_RUN) - 1] as number) += 1;
    if (run > MAX_PUNCTUATION_RUN)
      (counts[isUniform ? PUNCTUATION_REPEATED : PUNCTUATION_LONG] as number) += run - MAX_PUNCTUATION_RUN;
    return index;
  }

  /**
   * A whitespace run: up to its last line break one piece, then the spaces left but the last one
   * when something follows (that one is the next piece's prefix), as o200k splits them.
   */
  #whitespace(start: number): number {
    const text = this.#text;
    let index = start;
    let lastBreak = -1;
    let breaks = 0;
    for (; index < text.length; index += 1) {
      const kind = spaceKind(text.charCodeAt(index));
      if (kind === 0) break;
      if (kind === NEWLINE) {
        lastBreak = index;
        breaks += 1;
      }
    }
    const counts = this.#counts;
    if (lastBreak >= 0) {
      (counts[NEWLINE_PIECES] as number) += 1;
      (counts[NEWLINE_CHARS] as number) += breaks;
    }
    const spacesFrom = lastBreak >= 0 ? lastBreak + 1 : start;
    // The last space before a non-space is the next piece's prefix, unless it is the whole run.
    const keepLast =
      index < text.length && index > spacesFrom && (lastBreak >= 0 || index - start > 1) ? 1 : 0;
    const spaces = index - spacesFrom - keepLast;
    if (spaces > 0) {
      (counts[SPACE_PIECES] as number) += 1;
      (counts[SPACE_CHARS] as number) += spaces;
    }
    return index - keepLast;
  }

  /** A run of code points of one non-ASCII script, or one symbol, emoji or other code point. */
  #nonAscii(start: number, code: number): number {
    const text = this.#text;
    const counts = this.#counts;
    if (code >= 0xd800 && code <= 0xdbff && start + 1 < text.length) {
      const point = text.codePointAt(start) ?? code;
      (counts[point >= 0x20000 && point < 0x30000 ? HAN : ASTRAL] as number) += 1;
      (counts[SCRIPT_RUNS] as number) += 1;
      return point > 0xffff ? start + 2 : start + 1;
    }
    const entry = BMP[code] as number;
    if (entry === ACCENTED) return this.#word(start, 0);
    if (entry === BLANK) return this.#whitespace(start);
    (counts[SCRIPT_RUNS] as number) += 1;
    if (entry === 0) {
      (counts[OTHER] as number) += 1;
      return start + 1;
    }
    const feature = (entry & ~LETTER_FLAG) - 1;
    let index = start + 1;
    if ((entry & LETTER_FLAG) !== 0)
      while (index < text.length && BMP[text.charCodeAt(index)] === entry) index += 1;
    (counts[feature] as number) += index - start;
    return index;
  }
}
