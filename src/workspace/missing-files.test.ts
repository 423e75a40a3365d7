import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MissingFiles } from './missing-files.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-missing-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Lets the folder's last change fall in an earlier timestamp tick than the next one (`settleMs: 0`). */
const nextTick = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Finds `file` missing once, then asks again in a new round. */
async function knownMissing(missing: MissingFiles, file: string): Promise<boolean> {
  const round = missing.round();
  expect(round.stillMissing(file)).toBe(false);
  round.lookedUp(file, true);
  return missing.round().stillMissing(file);
}

describe('MissingFiles', () => {
  it('tells a missing file is still missing while its folder is unchanged', async () => {
    await nextTick();
    const missing = new MissingFiles(0);
    const file = path.join(root, 'AGENTS.md');
    expect(await knownMissing(missing, file)).toBe(true);
    expect(missing.round().stillMissing(path.join(root, 'SOUL.md'))).toBe(false); // never looked up
  });

  it('looks again once the folder changed: a file created, renamed in, or a sibling removed', async () => {
    const file = path.join(root, 'AGENTS.md');
    const missing = new MissingFiles(0);
    await writeFile(path.join(root, 'other.md'), 'x');
    await nextTick();
    expect(await knownMissing(missing, file)).toBe(true);
    await writeFile(file, 'now here');
    expect(missing.round().stillMissing(file)).toBe(false);

    await rm(file);
    await nextTick();
    expect(await knownMissing(missing, file)).toBe(true);
    await writeFile(path.join(root, 'elsewhere.tmp'), 'y');
    await rename(path.join(root, 'elsewhere.tmp'), file);
    expect(missing.round().stillMissing(file)).toBe(false);
  });

  it('looks again when the folder is replaced by a link to another folder', async () => {
    const folder = path.join(root, 'docs');
    const other = path.join(root, 'other');
    await mkdir(folder);
    await mkdir(other);
    await writeFile(path.join(other, 'AGENTS.md'), 'there');
    await nextTick();
    const missing = new MissingFiles(0);
    const file = path.join(folder, 'AGENTS.md');
    expect(await knownMissing(missing, file)).toBe(true);
    await rm(folder, { recursive: true });
    await symlink(other, folder);
    expect(missing.round().stillMissing(file)).toBe(false);
  });

  it('keeps nothing for an unsettled folder, a folder that is missing, or a file found', async () => {
    const file = path.join(root, 'AGENTS.md');
    expect(await knownMissing(new MissingFiles(60_000), file)).toBe(false);
    expect(await knownMissing(new MissingFiles(0), path.join(root, 'none', 'AGENTS.md'))).toBe(false);
    await nextTick();
    const missing = new MissingFiles(0);
    expect(await knownMissing(missing, file)).toBe(true);
    const round = missing.round();
    round.lookedUp(file, false);
    expect(missing.round().stillMissing(file)).toBe(false);
  });

  it('stats the folder before the lookup: a file created during the round is seen next round', async () => {
    await nextTick();
    const missing = new MissingFiles(0);
    const file = path.join(root, 'AGENTS.md');
    const round = missing.round();
    expect(round.stillMissing(file)).toBe(false); // the folder's stamp is taken here
    await writeFile(file, 'created after the stamp, before the lookup said missing');
    round.lookedUp(file, true); // a lookup that ran before the write
    expect(missing.round().stillMissing(file)).toBe(false);
  });

  it('vouches for nothing under a path that is not a folder', async () => {
    const file = path.join(root, 'plain');
    await writeFile(file, 'not a folder');
    await nextTick();
    expect(await knownMissing(new MissingFiles(0), path.join(file, 'AGENTS.md'))).toBe(false);
    expect(await knownMissing(new MissingFiles(0), path.join(file, 'sub', 'AGENTS.md'))).toBe(false); // ENOTDIR
  });
});
