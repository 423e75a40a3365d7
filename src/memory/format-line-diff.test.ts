import { describe, expect, it } from 'vitest';
import { formatLineDiff } from './format-line-diff.js';

const labels = { oldLabel: 'a/MEMORY.md', newLabel: 'b/MEMORY.md' };

describe('formatLineDiff', () => {
  it('prints nothing for equal texts', () => {
    expect(formatLineDiff({ oldText: 'a\nb\n', newText: 'a\nb\n', ...labels })).toBe('');
  });

  it('prints unified hunks with context, deletions before additions', () => {
    const old = ['# Memory', '- a', '- b', '- c', '- d', '- e', '- f', '- g', '- h', '- i', '- j', ''].join(
      '\n',
    );
    const next = [
      '# Memory',
      '- a',
      '- B',
      '- c',
      '- d',
      '- e',
      '- f',
      '- g',
      '- h',
      '- i',
      '- j',
      '- k',
      '',
    ].join('\n');
    expect(formatLineDiff({ oldText: old, newText: next, ...labels })).toBe(
      [
        '--- a/MEMORY.md',
        '+++ b/MEMORY.md',
        '@@ -1,6 +1,6 @@',
        ' # Memory',
        ' - a',
        '-- b',
        '+- B',
        ' - c',
        ' - d',
        ' - e',
        '@@ -9,3 +9,4 @@',
        ' - h',
        ' - i',
        ' - j',
        '+- k',
        '',
      ].join('\n'),
    );
  });

  it('shows a new file and an emptied one', () => {
    expect(formatLineDiff({ oldText: '', newText: 'x\n', ...labels })).toBe(
      '--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -0,0 +1,1 @@\n+x\n',
    );
    expect(formatLineDiff({ oldText: 'x\ny\n', newText: '', ...labels })).toBe(
      '--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1,2 +0,0 @@\n-x\n-y\n',
    );
  });
});
