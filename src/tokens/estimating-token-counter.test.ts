import { beforeAll, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { BpeEncoder } from './bpe-encoder.js';
import { EstimatingTokenCounter } from './estimating-token-counter.js';
import { SimpleTokenCounter } from './simple-token-counter.js';
import { CORPUS_CLASSES, type CorpusClass, generateCorpusDocuments } from './token-corpus.js';
import { TOKEN_ESTIMATE_COEFFICIENTS } from './token-estimate-coefficients.js';
import { ESTIMATE_FEATURES } from './token-estimate-features.js';

/** Seeds the fitting script never uses (it trains on 1000+ and reports on 2000+). */
const TEST_SEED = 3_000;
const LIMITS: Readonly<Record<CorpusClass, number>> = {
  english: 5,
  code: 5,
  json: 5,
  chinese: 10,
  mixed: 10,
};

let exact: BpeEncoder;
beforeAll(async () => {
  exact = await BpeEncoder.load('o200k_base');
});

/** Mean absolute percentage error of a counter against exact o200k counts. */
function mape(count: (text: string) => number, documents: readonly string[]): number {
  let total = 0;
  for (const text of documents)
    total += Math.abs(count(text) - exact.countTokens(text)) / exact.countTokens(text);
  return (total / documents.length) * 100;
}

describe('EstimatingTokenCounter', () => {
  const estimator = new EstimatingTokenCounter();
  const simple = new SimpleTokenCounter();

  for (const corpusClass of CORPUS_CLASSES) {
    it(`estimates generated ${corpusClass} within ${LIMITS[corpusClass]}% of exact o200k (mean), better than characters ÷ 4`, () => {
      const documents = generateCorpusDocuments({
        corpusClass,
        seed: TEST_SEED + corpusClass.length,
        count: 300,
      });
      const error = mape((text) => estimator.countText(text), documents);
      expect(error).toBeLessThanOrEqual(LIMITS[corpusClass]);
      expect(error).toBeLessThan(mape((text) => simple.countText(text), documents));
    });
  }

  it('counts 0 for an empty text, at least 1 for any other, and says it estimates', () => {
    expect(estimator.countText('')).toBe(0);
    for (const text of [' ', 'a', '\n', '中', '🙂', '\ud800'])
      expect(estimator.countText(text)).toBeGreaterThanOrEqual(1);
    expect([estimator.id, estimator.kind]).toEqual(['estimate:o200k', 'estimate']);
    expect(estimator.countMessage(user('Hello there'))).toBe(estimator.countText('Hello there') + 4);
  });

  it('has exactly one fitted coefficient per feature', () => {
    expect(Object.keys(TOKEN_ESTIMATE_COEFFICIENTS)).toEqual([...ESTIMATE_FEATURES]);
    for (const value of Object.values(TOKEN_ESTIMATE_COEFFICIENTS)) expect(value).toBeGreaterThanOrEqual(0);
  });

  it('grows with the text: a longer text of the same kind never counts less', () => {
    const words = 'The context window of the model is a budget we spend carefully. '.repeat(40);
    let previous = 0;
    for (let length = 0; length <= words.length; length += 37) {
      const count = estimator.countText(words.slice(0, length));
      expect(count).toBeGreaterThanOrEqual(previous - 1);
      previous = count;
    }
  });
});
