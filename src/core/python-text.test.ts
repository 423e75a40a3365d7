import { describe, expect, it } from 'vitest';
import { pythonSplitLines } from './python-split-lines.js';
import { pythonStrip } from './python-strip.js';
import { toUniversalNewlines } from './universal-newlines.js';

// Expected values are what CPython 3.11 returns for the same strings.
describe('pythonStrip', () => {
  it('strips what str.strip() strips, not what String#trim() strips', () => {
    expect(pythonStrip(' \t\n x \r\v\f')).toBe('x');
    expect(pythonStrip('\u001c\u001f\u0085x\u3000\u2028')).toBe('x');
    expect(pythonStrip('\ufeffx\ufeff')).toBe('\ufeffx\ufeff');
    expect(pythonStrip('   ')).toBe('');
  });

  it('returns the same string when there is nothing to strip', () => {
    const text = 'a b';
    expect(pythonStrip(text)).toBe(text);
  });
});

describe('pythonSplitLines', () => {
  it('splits on every Python line boundary and drops a final one', () => {
    expect(pythonSplitLines('a\r\nb\rc\nd\u000be\u000cf\u001cg\u0085h\u2028i\u2029')).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
    ]);
    expect(pythonSplitLines('a\n\n')).toEqual(['a', '']);
    expect(pythonSplitLines('\n')).toEqual(['']);
    expect(pythonSplitLines('')).toEqual([]);
    expect(pythonSplitLines('a\u001fb')).toEqual(['a\u001fb']);
  });
});

describe('toUniversalNewlines', () => {
  it('turns CRLF and lone CR into LF as Python text mode does', () => {
    expect(toUniversalNewlines('a\r\nb\rc\n')).toBe('a\nb\nc\n');
  });
});
