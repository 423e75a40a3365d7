import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, sliceCodePoints } from './code-points.js';
import { TRUNCATION_SUFFIX, truncateText } from './truncate-text.js';

describe('code points, as Python counts text', () => {
  it('counts an emoji once and a lone surrogate once', () => {
    expect(codePointLength('a🚀b')).toBe(3);
    expect(codePointLength('上下文')).toBe(3);
    expect(codePointLength('x\uD800y')).toBe(3);
    expect(sliceCodePoints('🚀🚀🚀', 2)).toBe('🚀🚀');
    expect(truncateText('🚀🚀🚀', 2)).toBe(`🚀🚀${TRUNCATION_SUFFIX}`);
    expect(truncateText('🚀🚀', 2)).toBe('🚀🚀');
  });

  it('agree with Array.from (which iterates code points) and never split a pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(40), (text, count) => {
        const points = Array.from(text);
        expect(codePointLength(text)).toBe(points.length);
        expect(sliceCodePoints(text, count)).toBe(points.slice(0, count).join(''));
      }),
    );
  });
});
