import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceFileCache } from './file-cache.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-file-cache-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('WorkspaceFileCache', () => {
  it('serves an unchanged file from the cache', async () => {
    const file = path.join(dir, 'a.md');
    await writeFile(file, 'hello');
    const cache = new WorkspaceFileCache();
    expect((await cache.read(file)).text).toBe('hello');
    expect((await cache.read(file)).text).toBe('hello');
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 1 });
  });

  it('re-reads when the size or the mtime changes', async () => {
    const file = path.join(dir, 'a.md');
    await writeFile(file, 'one');
    await utimes(file, new Date(2020, 0, 1), new Date(2020, 0, 1));
    const cache = new WorkspaceFileCache();
    await cache.read(file);
    await writeFile(file, 'two');
    await utimes(file, new Date(2021, 0, 1), new Date(2021, 0, 1));
    expect((await cache.read(file)).text).toBe('two');
    await writeFile(file, 'three!');
    await utimes(file, new Date(2021, 0, 1), new Date(2021, 0, 1));
    expect((await cache.read(file)).text).toBe('three!');
    expect(cache.misses).toBe(3);
  });

  it('keeps at most maxEntries files and forgets everything on clear', async () => {
    const cache = new WorkspaceFileCache({ maxEntries: 1 });
    await writeFile(path.join(dir, 'a'), 'a');
    await writeFile(path.join(dir, 'b'), 'b');
    await cache.read(path.join(dir, 'a'));
    await cache.read(path.join(dir, 'b'));
    await cache.read(path.join(dir, 'a'));
    expect(cache.misses).toBe(3);
    cache.clear();
    await cache.read(path.join(dir, 'a'));
    expect(cache.misses).toBe(4);
  });

  it('rejects with the file system error for a missing file and ABORTED for an aborted signal', async () => {
    const cache = new WorkspaceFileCache();
    await expect(cache.read(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    const controller = new AbortController();
    controller.abort();
    await expect(cache.read(path.join(dir, 'x'), { signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});
