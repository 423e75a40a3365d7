import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { ByteTokenCounter, utf8ByteLength } from './byte-token-counter.js';

describe('ByteTokenCounter', () => {
  it('counts UTF-8 bytes: ASCII 1, accents 2, CJK 3, emoji 4', () => {
    const counter = new ByteTokenCounter();
    expect(counter.countText('abc')).toBe(3);
    expect(counter.countText('é')).toBe(2);
    expect(counter.countText('你好')).toBe(6);
    expect(counter.countText('🙂')).toBe(4);
    expect(counter.countMessage(user('abc'))).toBe(7);
    expect(counter.id).toBe('bytes');
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 200 })], { numRuns: 100 })(
    'agrees with Buffer.byteLength on any string, lone surrogates included',
    (text) => {
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
    },
  );
});
