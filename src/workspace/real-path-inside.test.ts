import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchError } from '../testing/catch-error.js';
import { realPathInside } from './real-path-inside.js';

let base = '';
let root = '';
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'ctxloom-real-'));
  root = path.join(base, 'workspace');
  await mkdir(root);
  await writeFile(path.join(root, 'SOUL.md'), 'soul');
  await writeFile(path.join(base, 'secret.md'), 'secret');
  await symlink(path.join(root, 'SOUL.md'), path.join(root, 'ALIAS.md'));
  await symlink(path.join(base, 'secret.md'), path.join(root, 'OUT.md'));
  await symlink(path.join(root, 'gone.md'), path.join(root, 'DANGLING.md'));
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside', 'AGENTS.md'), 'outside');
  await symlink(path.join(base, 'outside'), path.join(root, 'docs'));
  await symlink(root, path.join(base, 'linked-workspace'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('realPathInside', () => {
  it('gives the real path of a file or a link inside the root, and undefined when nothing is there', async () => {
    const real = await realpath(path.join(root, 'SOUL.md'));
    expect(realPathInside(root, { path: 'SOUL.md' })).toBe(real);
    expect(realPathInside(root, { path: 'ALIAS.md' })).toBe(real);
    expect(realPathInside(root, { path: 'USER.md' })).toBeUndefined();
    expect(realPathInside(root, { path: 'missing/USER.md' })).toBeUndefined();
  });

  it('refuses a link that leaves the root and reports a dangling link as the file system does', () => {
    expect(catchError(() => realPathInside(root, { path: 'OUT.md' }))).toMatchObject({ code: 'UNSAFE_PATH' });
    expect(catchError(() => realPathInside(root, { path: 'DANGLING.md' }))).toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a file under a folder link that leaves the root', () => {
    expect(catchError(() => realPathInside(root, { path: 'docs/AGENTS.md' }))).toMatchObject({
      code: 'UNSAFE_PATH',
    });
  });

  it('resolves a root reached through a link, asking realRootOf once per lookup and never for a missing file', async () => {
    const linked = path.join(base, 'linked-workspace');
    const asked: string[] = [];
    const realRootOf = (dir: string) => {
      asked.push(dir);
      return realpathSync.native(dir);
    };
    expect(realPathInside(linked, { path: 'SOUL.md', realRootOf })).toBe(
      await realpath(path.join(root, 'SOUL.md')),
    );
    expect(realPathInside(linked, { path: 'USER.md', realRootOf })).toBeUndefined();
    expect(asked).toEqual([linked]);
  });
});
