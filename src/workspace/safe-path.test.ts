import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { injectiveFileName, leavesFolder, resolveInside, safeFileName } from './safe-path.js';

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

  it('answers again from its cache as it answered first, and never keeps a refusal', () => {
    // A root with a NUL and a path after it would share a key with a shorter root and a path with a
    // NUL: the path is refused before the cache is asked.
    expect(resolveInside(`${root}\0x`, 'y')).toBe(path.join(`${root}\0x`, 'y'));
    expect(() => resolveInside(root, 'x\0y')).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
    for (let round = 0; round < 2; round += 1) {
      expect(resolveInside(root, 'memory/MEMORY.md')).toBe(path.join(root, 'memory/MEMORY.md'));
      expect(() => resolveInside(root, '../x')).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
    }
  });

  it('resolves a relative root against the working directory of the call', () => {
    const start = process.cwd();
    try {
      process.chdir(path.parse(start).root);
      const first = resolveInside('ws', 'AGENTS.md');
      process.chdir(start);
      expect(resolveInside('ws', 'AGENTS.md')).toBe(path.resolve('ws', 'AGENTS.md'));
      expect(resolveInside('ws', 'AGENTS.md')).not.toBe(first);
    } finally {
      process.chdir(start);
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

describe('injectiveFileName', () => {
  it('keeps plain names and gives every other name a digest suffix', () => {
    expect(injectiveFileName('call_1')).toBe('call_1');
    expect(injectiveFileName('call:1')).toMatch(/^call_1~[0-9a-f]{16}$/);
    expect(injectiveFileName('a:b')).not.toBe(injectiveFileName('a_b'));
    expect(injectiveFileName('Call')).not.toBe('call');
    expect(injectiveFileName('k\uD800')).not.toBe(injectiveFileName('k\uDBFF'));
    for (const reserved of ['con', 'NUL', 'com1', 'LPT9', 'a.', 'a ', '..', '', '../../x']) {
      expect(injectiveFileName(reserved)).toMatch(/^[A-Za-z0-9_-]*~[0-9a-f]{16}$/);
    }
  });

  test.prop([fc.string(), fc.string()])(
    'maps distinct strings to names that differ even case-folded',
    (a, b) => {
      fc.pre(a !== b);
      expect(injectiveFileName(a).toLowerCase()).not.toBe(injectiveFileName(b).toLowerCase());
      expect(path.dirname(resolveInside(root, injectiveFileName(a)))).toBe(root);
    },
  );
});
