/**
 * The candidate `given` most likely stands for: the closest by edit distance when it is close enough
 * to be a typo (at most a third of its length, and at least 1, apart; a candidate that starts with
 * `given` also counts), else the candidate whose words hold all of `given`'s words (camelCase, `-` and
 * `_` split words: `maxTokens` → `maxInputTokens`), fewest extra words first. `undefined` when none is.
 */
export function closestName(given: string, candidates: readonly string[]): string | undefined {
  return closestBySpelling(given, candidates) ?? closestByWords(given, candidates);
}

function closestBySpelling(given: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(given.length / 3));
  let best: { readonly name: string; readonly distance: number } | undefined;
  for (const name of candidates) {
    const distance = name.startsWith(given) && given.length >= 3 ? 1 : editDistance(given, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function closestByWords(given: string, candidates: readonly string[]): string | undefined {
  const words = wordsOf(given);
  if (words.length < 2) return undefined;
  let best: { readonly name: string; readonly extra: number } | undefined;
  for (const name of candidates) {
    const theirs = wordsOf(name);
    if (!words.every((word) => theirs.includes(word))) continue;
    const extra = theirs.length - words.length;
    if (best === undefined || extra < best.extra) best = { name, extra };
  }
  return best?.name;
}

/** The lower-cased words of a camelCase, kebab-case or snake_case name. */
function wordsOf(name: string): readonly string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s\-_]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** The Levenshtein distance, with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const cells = Array.from({ length: (a.length + 1) * width }, (_, k) =>
    k < width ? k : k % width === 0 ? k / width : 0,
  );
  const at = (i: number, j: number): number => cells[i * width + j] ?? 0;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      cells[i * width + j] = value;
    }
  }
  return at(a.length, b.length);
}
