import { describe, expect, it } from 'vitest';
import { mergeContent } from './merge-content.js';

describe('mergeContent', () => {
  it('joins two strings with a blank line and drops an empty side', () => {
    expect(mergeContent('hello', 'world')).toBe('hello\n\nworld');
    expect(mergeContent('', 'world')).toBe('world');
    expect(mergeContent('hello', '')).toBe('hello');
  });

  it('turns other shapes into part lists and concatenates them (spec examples)', () => {
    expect(mergeContent(null, 'hello')).toEqual([{ type: 'text', text: 'hello' }]);
    expect(mergeContent(null, null)).toEqual([]);
    expect(mergeContent(['raw_item'], null)).toEqual([{ type: 'text', text: 'raw_item' }]);
    expect(mergeContent(42, undefined)).toEqual([{ type: 'text', text: '42' }]);
  });

  it('keeps image parts and their order', () => {
    const image = { type: 'image', url: 'data:image/png;base64,AA==', mediaType: 'image/png' } as const;
    expect(mergeContent('before', [image, { type: 'text', text: 'after' }])).toEqual([
      { type: 'text', text: 'before' },
      image,
      { type: 'text', text: 'after' },
    ]);
  });
});
