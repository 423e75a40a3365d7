import { describe, expect, it } from 'vitest';
import { TRUNCATION_SUFFIX, truncateText } from './truncate-text.js';

describe('truncateText', () => {
  it('keeps the first maxChars characters and appends the suffix', () => {
    expect(truncateText('abcdef', 3)).toBe(`abc${TRUNCATION_SUFFIX}`);
    expect(TRUNCATION_SUFFIX).toBe('\n... (truncated)');
  });

  it('leaves fitting text, and any text when maxChars ≤ 0, unchanged', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    expect(truncateText('abcdef', 0)).toBe('abcdef');
  });
});
