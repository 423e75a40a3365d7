import { TRUNCATION_SUFFIX } from './governor-constants.js';

/**
 * Keeps the first `maxChars` characters of `text` and appends the truncation suffix
 * (`"\n... (truncated)"`). Unchanged when `maxChars ≤ 0` or the text fits, so the result is longer
 * than `maxChars` by the suffix. Idempotent: truncating a truncated text changes nothing.
 */
export function truncateText(text: string, maxChars: number, suffix: string = TRUNCATION_SUFFIX): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}${suffix}`;
}
