import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextError } from '../core/errors.js';
import { catchError } from '../testing/catch-error.js';
import { createBm25Index } from './bm25-index.js';
import { searchTerms } from './search-terms.js';

const documents = [
  { id: 'a', text: 'get the weather forecast for a city' },
  { id: 'b', text: 'weather weather weather alerts' },
  { id: 'c', text: 'create an issue in a repository' },
  { id: 'd', text: 'list pull requests of a repository, newest first' },
];

describe('createBm25Index', () => {
  it('ranks by BM25: rarer terms weigh more, repeated terms saturate, longer documents are normalised', () => {
    const index = createBm25Index(documents);
    expect(index.search('weather', 10).map((hit) => hit.id)).toEqual(['b', 'a']);
    expect(index.search('forecast weather', 10).map((hit) => hit.id)).toEqual(['a', 'b']);
    expect(index.search('repository issue', 10)[0]?.id).toBe('c');
    expect(index.search('nothing here', 10)).toEqual([]);
  });

  it('computes the textbook score (k1 1.2, b 0.75, idf ln(1 + (N - n + 0.5) / (n + 0.5)))', () => {
    const index = createBm25Index([
      { id: 'x', text: 'alpha beta' },
      { id: 'y', text: 'gamma' },
    ]);
    // N 2, n(alpha) 1, |x| 2, avgdl 1.5, f 1.
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * (1 * 2.2)) / (1 + 1.2 * (1 - 0.75 + (0.75 * 2) / 1.5));
    expect(index.search('alpha', 5)[0]?.score).toBeCloseTo(expected, 12);
  });

  it('rejects unknown options and out-of-range parameters', () => {
    expect((catchError(() => createBm25Index([], { k: 1 } as never)) as ContextError).code).toBe(
      'INVALID_OPTIONS',
    );
    expect((catchError(() => createBm25Index([], { b: 2 })) as ContextError).message).toMatch(/b in 0\.\.1/);
  });

  it('hits share a query term, are sorted best first, and at most limit come back (property)', () => {
    const word = fc.constantFrom('tool', 'weather', 'issue', 'Repo', 'getUser', 'by_id', 'list', 'x1');
    const text = fc.array(word, { maxLength: 8 }).map((words) => words.join(' '));
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 12 }),
        text,
        fc.integer({ min: 0, max: 6 }),
        (texts, query, limit) => {
          const index = createBm25Index(
            texts.map((value, position) => ({ id: String(position), text: value })),
          );
          const hits = index.search(query, limit);
          expect(hits.length).toBeLessThanOrEqual(limit);
          const queryTerms = new Set(searchTerms(query));
          for (const hit of hits) {
            expect(hit.score).toBeGreaterThan(0);
            expect(searchTerms(texts[Number(hit.id)] ?? '').some((term) => queryTerms.has(term))).toBe(true);
          }
          for (let at = 1; at < hits.length; at++)
            expect(hits[at - 1]?.score).toBeGreaterThanOrEqual(hits[at]?.score ?? 0);
        },
      ),
    );
  });
});

describe('searchTerms', () => {
  it('splits snake_case, camelCase, acronyms, digits and punctuation, lowercased', () => {
    expect(searchTerms('github__create_pull_request')).toEqual(['github', 'create', 'pull', 'request']);
    expect(searchTerms('getUserByID2fa')).toEqual(['get', 'user', 'by', 'id', '2', 'fa']);
    expect(searchTerms('HTTPServer, "lat,lon"')).toEqual(['http', 'server', 'lat', 'lon']);
    expect(searchTerms('Événement déjà')).toEqual(['événement', 'déjà']);
  });
});
