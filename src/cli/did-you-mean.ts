/**
 * The candidate closest to `given` by edit distance, when it is close enough to be a typo (at most
 * a third of its length, and at least 1, apart; a candidate that starts with `given` also counts).
 */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(given.length / 3));
  let best: { readonly name: string; readonly distance: number } | undefined;
  for (const name of candidates) {
    const distance = name.startsWith(given) && given.length >= 3 ? 1 : editDistance(given, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** ` Did you mean X?` for the closest candidate, else the empty string. */
export function didYouMean(given: string, candidates: readonly string[]): string {
  const match = closest(given, candidates);
  return match === undefined ? '' : ` Did you mean ${match}?`;
}

/** The Levenshtein distance, with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = value;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
