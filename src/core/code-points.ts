/**
 * Text lengths as Python (and so nanobot) measures them: in Unicode code points, where JavaScript's
 * `length` counts UTF-16 code units and an emoji or another astral character counts twice. A lone
 * surrogate counts as one code point, as Python counts it.
 */

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * A high surrogate followed by a low one: a pair, one code point. The regular expression engine scans
 * a long text several times faster than a loop of `charCodeAt`, and most texts have no pair at all.
 */
const SURROGATE_PAIR = /[\uD800-\uDBFF](?=[\uDC00-\uDFFF])/g;
/** Any surrogate, paired or not. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** The number of code points in `text` (Python's `len(text)`). */
export function codePointLength(text: string): number {
  let length = text.length;
  SURROGATE_PAIR.lastIndex = 0;
  while (SURROGATE_PAIR.test(text)) length -= 1;
  return length;
}

/** The first `count` code points of `text` (Python's `text[:count]`); never splits a surrogate pair. */
export function sliceCodePoints(text: string, count: number): string {
  if (count <= 0) return '';
  if (text.length <= count) return text;
  // Without a surrogate among the first `count` code units, they are the first `count` code points.
  const head = text.slice(0, count);
  if (!SURROGATE.test(head)) return head;
  let units = 0;
  for (let points = 0; points < count && units < text.length; points += 1) {
    const pair =
      isHigh(text.charCodeAt(units)) && units + 1 < text.length && isLow(text.charCodeAt(units + 1));
    units += pair ? 2 : 1;
  }
  return text.slice(0, units);
}
