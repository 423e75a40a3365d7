/**
 * A set of placeholder texts, compared after trimming as `text.trim()` would, without trimming or
 * hashing a text that cannot be one: a long assistant answer is told apart by its length (the
 * whitespace at its ends is skipped in place), so the check costs O(1) for it instead of a copy and a
 * hash of its whole text on every build. @internal
 */
export class PlaceholderTexts {
  readonly #texts: ReadonlySet<string>;
  readonly #maxLength: number;

  constructor(texts: readonly string[]) {
    this.#texts = new Set(texts);
    this.#maxLength = Math.max(0, ...texts.map((text) => text.length));
  }

  /** True when `text`, trimmed, is one of the placeholders. */
  has(text: string): boolean {
    let start = 0;
    let end = text.length;
    while (start < end && isTrimmed(text.charCodeAt(start))) start += 1;
    while (end > start && isTrimmed(text.charCodeAt(end - 1))) end -= 1;
    if (end - start > this.#maxLength) return false;
    return this.#texts.has(start === 0 && end === text.length ? text : text.slice(start, end));
  }
}

/** The characters `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator). */
function isTrimmed(code: number): boolean {
  if (code > 0x20 && code < 0x7f) return false; // printable ASCII: the common case, decided at once
  return WHITESPACE.test(String.fromCharCode(code));
}

const WHITESPACE = /^\s$/;
