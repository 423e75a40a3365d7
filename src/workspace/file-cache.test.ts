import { mkdtemp, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settle } from '../../test/helpers/settle.js';
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
    await settle();
    const cache = new WorkspaceFileCache({ settleMs: 0 });
    const first = await cache.read(file);
    expect(first.text).toBe('hello');
    expect(await cache.read(file)).toBe(first);
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 1 });
  });

  it('re-reads a file changed within settleMs of its read, keeping the object while the text is the same', async () => {
    const file = path.join(dir, 'a.md');
    await writeFile(file, 'hello');
    const cache = new WorkspaceFileCache({ settleMs: 60_000 });
    const first = await cache.read(file);
    const second = await cache.read(file);
    expect(second).toBe(first);
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 0, misses: 2 });
    // A same-size rewrite with the same mtime within the tick is what the re-read is for.
    const { mtime } = await stat(file);
    await writeFile(file, 'HELLO');
    await utimes(file, mtime, mtime);
    expect((await cache.read(file)).text).toBe('HELLO');
  });

  it('tells a same-size file moved into place with the same mtime by its inode', async () => {
    const file = path.join(dir, 'a.md');
    const old = new Date(2020, 0, 1);
    await writeFile(file, 'one');
    await utimes(file, old, old);
    await settle();
    const cache = new WorkspaceFileCache({ settleMs: 0 });
    await cache.read(file);
    await writeFile(`${file}.tmp`, 'two');
    await utimes(`${file}.tmp`, old, old);
    await rename(`${file}.tmp`, file);
    await settle();
    expect((await cache.read(file)).text).toBe('two');
  });

  it('readIfExists gives undefined for a missing file and forgets what it had cached', async () => {
    const file = path.join(dir, 'a.md');
    const cache = new WorkspaceFileCache({ settleMs: 0 });
    expect(await cache.readIfExists(file)).toBeUndefined();
    await writeFile(file, 'here');
    await settle();
    expect((await cache.readIfExists(file))?.text).toBe('here');
    await rm(file);
    expect(await cache.readIfExists(file)).toBeUndefined();
    await writeFile(file, 'back');
    expect((await cache.readIfExists(file))?.text).toBe('back');
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

  it('takes the stat a caller gives for its own (no second stat): a changed one re-reads', async () => {
    const file = path.join(dir, 'a.md');
    await writeFile(file, 'one');
    await utimes(file, new Date(2020, 0, 1), new Date(2020, 0, 1));
    const cache = new WorkspaceFileCache({ settleMs: 0 });
    const before = await stat(file);
    const first = await cache.read(file, { stats: before });
    await writeFile(file, 'two, longer');
    await utimes(file, new Date(2021, 0, 1), new Date(2021, 0, 1));
    // The caller's stat stands for the file: the one taken before the change says "unchanged".
    expect(await cache.read(file, { stats: before })).toBe(first);
    expect((await cache.read(file, { stats: await stat(file) })).text).toBe('two, longer');
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 2 });
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
