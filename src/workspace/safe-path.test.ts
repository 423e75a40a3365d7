import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { leavesFolder, resolveInside, safeFileName } from './safe-path.js';

const root = path.resolve('/tmp/ctxloom-root');

describe('resolveInside', () => {
  it('resolves paths inside the root, including names that merely start with dots', () => {
    expect(resolveInside(root, 'a/b.txt')).toBe(path.join(root, 'a/b.txt'));
    expect(resolveInside(root, '.._.._x')).toBe(path.join(root, '.._.._x'));
    expect(resolveInside(root, '.')).toBe(root);
  });

  it('refuses paths that leave the root', () => {
    for (const hostile of ['../x', '../../etc/passwd', '/etc/passwd', 'a/../../x', 'a\0b']) {
      expect(() => resolveInside(root, hostile)).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
    }
  });
});

describe('leavesFolder', () => {
  it('tells parent paths from names that start with dots', () => {
    expect(['..', `..${path.sep}x`, path.resolve('/abs')].map(leavesFolder)).toEqual([true, true, true]);
    expect(['..notes.md', '.hidden', 'a/..b', ''].map(leavesFolder)).toEqual([false, false, false, false]);
  });
});

describe('safeFileName', () => {
  it('replaces separators and reserved characters', () => {
    expect(safeFileName('test:runner')).toBe('test_runner');
    expect(safeFileName('../../x')).toBe('.._.._x');
    expect(safeFileName('..')).toBe('__');
    expect(safeFileName('  ')).toBe('_');
  });

  test.prop([fc.string()])('never yields a name that leaves its folder', (raw) => {
    const name = safeFileName(raw);
    expect(name).not.toMatch(/[/\\]/);
    expect(path.dirname(resolveInside(root, name))).toBe(root);
  });
});
