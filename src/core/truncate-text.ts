import { codePointLength, sliceCodePoints } from './code-points.js';

/** The suffix nanobot appends to every truncated text. */
export const TRUNCATION_SUFFIX = '\n... (truncated)';

/**
 * nanobot's `truncate_text`: unchanged when `maxChars ≤ 0` or the text fits; else the first
 * `maxChars` characters (code points, as Python counts them: an emoji is one character and a
 * surrogate pair is never split) plus {@link TRUNCATION_SUFFIX} (so the result is longer than `maxChars` by
 * the suffix).
 */
export function truncateText(text: string, maxChars: number): string {
  if (maxChars <= 0 || text.length <= maxChars || codePointLength(text) <= maxChars) return text;
  return `${sliceCodePoints(text, maxChars)}${TRUNCATION_SUFFIX}`;
}
