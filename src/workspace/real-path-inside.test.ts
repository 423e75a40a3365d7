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
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('realPathInside', () => {
  it('gives the real path of a file or a link inside the root, and undefined when nothing is there', async () => {
    const real = await realpath(path.join(root, 'SOUL.md'));
    expect(realPathInside(root, 'SOUL.md')).toBe(real);
    expect(realPathInside(root, 'ALIAS.md')).toBe(real);
    expect(realPathInside(root, 'USER.md')).toBeUndefined();
    expect(realPathInside(root, 'missing/USER.md')).toBeUndefined();
  });

  it('refuses a link that leaves the root and reports a dangling link as the file system does', () => {
    expect(catchError(() => realPathInside(root, 'OUT.md'))).toMatchObject({ code: 'UNSAFE_PATH' });
    expect(catchError(() => realPathInside(root, 'DANGLING.md'))).toMatchObject({ code: 'ENOENT' });
  });
});
