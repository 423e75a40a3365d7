import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { PlaceholderTexts } from './placeholder-texts.js';

const whitespace = fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '\u3000', '');
const padded = (core: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.array(whitespace, { maxLength: 4 }), core, fc.array(whitespace, { maxLength: 4 }))
    .map(([before, text, after]) => `${before.join('')}${text}${after.join('')}`);

describe('PlaceholderTexts', () => {
  test.prop([
    fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 3 }),
    fc.oneof(padded(fc.string({ maxLength: 40 })), padded(fc.constantFrom('[omitted]', 'x'))),
  ])('says what a set of the placeholders says of the trimmed text', (texts, text) => {
    const placeholders = [...texts, '[omitted]'];
    expect(new PlaceholderTexts(placeholders).has(text)).toBe(new Set(placeholders).has(text.trim()));
  });
});
