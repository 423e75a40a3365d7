import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { searchTerms } from './search-terms.js';

/** One document of a {@link Bm25Index}: an id and its text. */
export type Bm25Document = {
  readonly id: string;
  readonly text: string;
};

/** A document that matched, with its BM25 score (higher is better). */
export type Bm25Hit = {
  readonly id: string;
  readonly score: number;
};

/** Options of {@link createBm25Index}. */
export type Bm25IndexOptions = {
  /** Term-frequency saturation. @default 1.2 */
  readonly k1?: number;
  /** Length normalisation, 0 (none) to 1 (full). @default 0.75 */
  readonly b?: number;
};

/** The known keys of {@link Bm25IndexOptions}. */
export const BM25_INDEX_OPTION_KEYS = { k1: true, b: true } as const satisfies OptionKeys<Bm25IndexOptions>;

/** A BM25 (Okapi) index over a fixed list of documents. */
export type Bm25Index = {
  /**
   * The documents that share at least one term with `query`, best first (ties in document order),
   * at most `limit` of them.
   */
  search(query: string, limit: number): readonly Bm25Hit[];
};

/**
 * Builds a BM25 index (Robertson's Okapi BM25 with the non-negative idf `ln(1 + (N - n + 0.5) / (n + 0.5))`)
 * over `documents`, terms as {@link searchTerms} splits them. Pure and deterministic.
 * @throws ContextError `INVALID_OPTIONS` for an unknown option, `k1 < 0`, or `b` outside 0..1.
 */
export function createBm25Index(
  documents: readonly Bm25Document[],
  options: Bm25IndexOptions = {},
): Bm25Index {
  checkOptions(options, { where: 'createBm25Index options', known: BM25_INDEX_OPTION_KEYS });
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  if (!(k1 >= 0) || !(b >= 0 && b <= 1)) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `createBm25Index takes k1 >= 0 and b in 0..1, got k1 ${k1} and b ${b}; leave them out for 1.2 and 0.75.`,
    });
  }
  const frequencies = documents.map((document) => {
    const counts = new Map<string, number>();
    const terms = searchTerms(document.text);
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    return { counts, length: terms.length };
  });
  const documentFrequency = new Map<string, number>();
  for (const { counts } of frequencies)
    for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const total = documents.length;
  const averageLength = total === 0 ? 0 : frequencies.reduce((sum, entry) => sum + entry.length, 0) / total;
  const idf = (term: string): number => {
    const n = documentFrequency.get(term) ?? 0;
    return Math.log(1 + (total - n + 0.5) / (n + 0.5));
  };
  const stats = { idf, k1, b, averageLength };
  return {
    search(query, limit) {
      const queryTerms = [...new Set(searchTerms(query))];
      const hits: { readonly id: string; readonly score: number; readonly index: number }[] = [];
      frequencies.forEach((entry, index) => {
        const score = bm25Score(queryTerms, { entry, stats });
        const document = documents[index];
        if (score > 0 && document !== undefined) hits.push({ id: document.id, score, index });
      });
      hits.sort((left, right) => right.score - left.score || left.index - right.index);
      return hits.slice(0, Math.max(0, limit)).map(({ id, score }) => ({ id, score }));
    },
  };
}

/** The BM25 score of one document for the query's distinct terms. */
function bm25Score(
  queryTerms: readonly string[],
  run: {
    readonly entry: { readonly counts: ReadonlyMap<string, number>; readonly length: number };
    readonly stats: {
      readonly idf: (term: string) => number;
      readonly k1: number;
      readonly b: number;
      readonly averageLength: number;
    };
  },
): number {
  const { entry, stats } = run;
  const norm = stats.averageLength === 0 ? 1 : 1 - stats.b + (stats.b * entry.length) / stats.averageLength;
  let score = 0;
  for (const term of queryTerms) {
    const frequency = entry.counts.get(term) ?? 0;
    if (frequency > 0)
      score += (stats.idf(term) * (frequency * (stats.k1 + 1))) / (frequency + stats.k1 * norm);
  }
  return score;
}
