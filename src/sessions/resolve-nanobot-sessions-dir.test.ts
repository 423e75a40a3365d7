import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveNanobotSessionsDir } from './resolve-nanobot-sessions-dir.js';

const ID = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210fedcba9876543210';
let root: string;
let workspace: string;
let config: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-nanobot-layout-'));
  workspace = path.join(root, 'workspace');
  config = path.join(root, 'config');
  await mkdir(path.join(workspace, '.nanobot'), { recursive: true });
  await mkdir(path.join(config, 'sessions'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function namespace(id: string, recorded: string): Promise<string> {
  const dir = path.join(config, 'sessions', id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, '.workspace'), `${recorded}\n`);
  return dir;
}

describe('resolveNanobotSessionsDir', () => {
  it("finds <config>/sessions/<id> from the workspace's .nanobot/workspace-id", async () => {
    await writeFile(path.join(workspace, '.nanobot', 'workspace-id'), `${ID}\n`);
    const dir = await namespace(ID, workspace);
    expect(await resolveNanobotSessionsDir({ workspace, configDir: config })).toEqual({
      found: true,
      dir,
      workspaceId: ID,
      via: 'workspace-id',
      legacyDirs: [path.join(config, 'sessions')],
    });
  });

  it('recovers the namespace from its .workspace marker when the id file is gone, as nanobot does', async () => {
    await namespace(OTHER, path.join(root, 'elsewhere'));
    const dir = await namespace(ID, workspace);
    await mkdir(path.join(workspace, 'sessions'));
    expect(await resolveNanobotSessionsDir({ workspace, configDir: config })).toMatchObject({
      found: true,
      dir,
      via: 'marker',
      legacyDirs: [path.join(config, 'sessions'), path.join(workspace, 'sessions')],
    });
  });

  it('refuses two namespaces claiming the same workspace', async () => {
    await namespace(ID, workspace);
    await namespace(OTHER, workspace);
    await expect(resolveNanobotSessionsDir({ workspace, configDir: config })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('claim'),
    });
  });

  it('treats a workspace copied with its id file as new (nanobot gives a copy an empty namespace)', async () => {
    const original = path.join(root, 'original');
    await mkdir(original);
    await writeFile(path.join(workspace, '.nanobot', 'workspace-id'), ID);
    await namespace(ID, original);
    const found = await resolveNanobotSessionsDir({ workspace, configDir: config });
    expect(found).toMatchObject({ found: false, reason: expect.stringContaining('is a copy') });
  });

  it('keeps the namespace of a moved workspace (its recorded path no longer exists)', async () => {
    await writeFile(path.join(workspace, '.nanobot', 'workspace-id'), ID);
    await namespace(ID, path.join(root, 'old-place'));
    expect(await resolveNanobotSessionsDir({ workspace, configDir: config })).toMatchObject({
      found: true,
      via: 'workspace-id',
    });
  });

  it('reports a workspace nanobot has not run in yet', async () => {
    expect(await resolveNanobotSessionsDir({ workspace, configDir: config })).toMatchObject({
      found: false,
      reason: expect.stringContaining('has not created'),
    });
  });

  it('refuses what nanobot refuses: a malformed or symlinked id, sessions inside the workspace', async () => {
    await writeFile(path.join(workspace, '.nanobot', 'workspace-id'), 'not-an-id');
    await expect(resolveNanobotSessionsDir({ workspace, configDir: config })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('32-character hex'),
    });
    await rm(path.join(workspace, '.nanobot', 'workspace-id'));
    await writeFile(path.join(root, 'id'), ID);
    await symlink(path.join(root, 'id'), path.join(workspace, '.nanobot', 'workspace-id'));
    await expect(resolveNanobotSessionsDir({ workspace, configDir: config })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('symlink'),
    });
    await expect(
      resolveNanobotSessionsDir({ workspace, configDir: path.join(workspace, 'cfg') }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('inside the workspace'),
    });
  });
});
