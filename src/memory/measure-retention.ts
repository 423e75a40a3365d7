/** How much of an old text a new one keeps, by words. */
export type Retention = {
  /** Words (letters and digits, case-folded) in the old text. */
  readonly oldWords: number;
  /** Old words that the new text still has (each counted as often as both texts have it). */
  readonly keptWords: number;
  /** `keptWords / oldWords`; 1 when the old text has no words. */
  readonly ratio: number;
};

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The share of the old text's words the new text keeps, counted as multisets so reordering, regrouping
 * and light rewording keep a high ratio while dropping facts lowers it.
 */
export function measureRetention(oldText: string, newText: string): Retention {
  const counts = new Map<string, number>();
  for (const word of newText.toLowerCase().match(WORD) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  let oldWords = 0;
  let keptWords = 0;
  for (const word of oldText.toLowerCase().match(WORD) ?? []) {
    oldWords += 1;
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      keptWords += 1;
      counts.set(word, left - 1);
    }
  }
  return { oldWords, keptWords, ratio: oldWords === 0 ? 1 : keptWords / oldWords };
}
