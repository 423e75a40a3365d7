import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { textArbitrary } from '../testing/arbitraries.js';
import { utf8ByteLength } from './byte-token-counter.js';
import { TiktokenTokenCounter } from './tiktoken-token-counter.js';
import { truncateTextToTokens } from './truncate-text-to-tokens.js';

const SUFFIX = '\n... (truncated)';
let counter: TiktokenTokenCounter;
beforeAll(async () => {
  counter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
});

describe('truncateTextToTokens', () => {
  const long = 'The quick brown fox jumps over the lazy dog. '.repeat(50);

  it('returns the text unchanged when it fits or maxTokens ≤ 0', () => {
    expect(truncateTextToTokens('short', { maxTokens: 10, tokenizer: counter })).toBe('short');
    expect(truncateTextToTokens(long, { maxTokens: 0, tokenizer: counter })).toBe(long);
  });

  it('keeps the longest token prefix whose text plus the suffix fits, suffix counted', () => {
    const result = truncateTextToTokens(long, { maxTokens: 40, tokenizer: counter });
    expect(result.endsWith(SUFFIX)).toBe(true);
    expect(counter.countText(result)).toBeLessThanOrEqual(40);
    const kept = result.slice(0, -SUFFIX.length);
    expect(long.startsWith(kept)).toBe(true);
    const oneMore = counter.decode(counter.encode(long).slice(0, counter.encode(kept).length + 1));
    expect(counter.countText(oneMore + SUFFIX)).toBeGreaterThan(40);
  });

  it('keeps the first n tokens without a suffix when n is at most the suffix size', () => {
    const suffixTokens = counter.countText(SUFFIX);
    const result = truncateTextToTokens(long, { maxTokens: suffixTokens, tokenizer: counter });
    expect(result).toBe(counter.decode(counter.encode(long).slice(0, suffixTokens)));
    expect(result.endsWith(SUFFIX)).toBe(false);
  });

  it('never leaves half a character when the cut falls inside one', () => {
    const result = truncateTextToTokens('🙂'.repeat(100), { maxTokens: 30, tokenizer: counter, suffix: '…' });
    expect(result).not.toContain('\uFFFD');
    expect(result.endsWith('…')).toBe(true);
  });

  it('falls back to a UTF-8 byte budget without a tokenizer, cutting on code points', () => {
    expect(truncateTextToTokens('你好世界', { maxTokens: 12 })).toBe('你好世界');
    const cut = truncateTextToTokens('你好世界'.repeat(10), { maxTokens: 24, suffix: '..' });
    expect(cut).toBe('你好世界你好世..');
    expect(utf8ByteLength(cut)).toBeLessThanOrEqual(24);
    expect(truncateTextToTokens('abcdef', { maxTokens: 2 })).toBe('ab');
  });

  test.prop([textArbitrary(400), fc.integer({ min: 1, max: 60 })], { numRuns: 100 })(
    'always fits maxTokens and keeps a prefix of the text',
    (text, maxTokens) => {
      const result = truncateTextToTokens(text, { maxTokens, tokenizer: counter });
      if (result === text) return;
      expect(counter.countText(result)).toBeLessThanOrEqual(maxTokens);
      const kept = result.endsWith(SUFFIX) ? result.slice(0, -SUFFIX.length) : result;
      expect(text.startsWith(kept)).toBe(true);
    },
  );
});
