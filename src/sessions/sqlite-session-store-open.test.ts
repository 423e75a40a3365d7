import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from './sqlite-session-store.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-sqlite-open-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SqliteSessionStore that cannot open its file', () => {
  it('fails with STORE_UNAVAILABLE naming the file, like every other step', async () => {
    const file = path.join(dir, 'sessions.db');
    await mkdir(file); // a folder where the database should be
    const store = new SqliteSessionStore({ path: file });
    await expect(store.load('k')).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining(`open failed on ${file}`),
    });
    await store.close();
  });
});
