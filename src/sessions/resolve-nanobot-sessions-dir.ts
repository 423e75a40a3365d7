import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';

/** Options for {@link resolveNanobotSessionsDir}. */
export type ResolveNanobotSessionsDirOptions = {
  /** The agent workspace (nanobot's `--workspace`). */
  readonly workspace: string;
  /** nanobot's config folder (where its `config.json` is; its `--config` flag's folder). @default `~/.nanobot` */
  readonly configDir?: string;
};

/** Where nanobot keeps a workspace's sessions, as {@link resolveNanobotSessionsDir} found it. */
export type NanobotSessionsDir =
  | {
      readonly found: true;
      /** The workspace's session folder, `<config>/sessions/<workspace id>`. */
      readonly dir: string;
      readonly workspaceId: string;
      /** How the id was found: `.nanobot/workspace-id`, or a namespace's `.workspace` marker naming this workspace. */
      readonly via: 'workspace-id' | 'marker';
      /** Existing folders of older layouts nanobot migrates from (`<config>/sessions` itself, `<workspace>/sessions`). */
      readonly legacyDirs: readonly string[];
    }
  | {
      readonly found: false;
      /** Why there is no session folder for this workspace (yet). */
      readonly reason: string;
      readonly legacyDirs: readonly string[];
    };

const WORKSPACE_ID = /^[0-9a-f]{32}$/;

/**
 * Finds nanobot's session folder for a workspace, by nanobot's rules, without writing anything:
 * sessions live under `<config>/sessions/<workspace id>/` (outside the workspace), where the 32-hex id
 * is in `<workspace>/.nanobot/workspace-id`; without that file, the namespace whose `.workspace` marker
 * names this workspace is used (nanobot recovers a deleted id file that way). A namespace whose marker
 * names another workspace that still exists means this workspace is a copy, which nanobot gives a
 * new, empty namespace. Pass the result to `JsonlSessionStore`:
 * @example
 * const found = await resolveNanobotSessionsDir({ workspace: '~/.nanobot/workspace' });
 * if (found.found) store = new JsonlSessionStore({ dir: found.dir, legacyDirs: found.legacyDirs });
 * @throws ContextError `INVALID_INPUT` for what nanobot itself refuses: a sessions root inside the
 * workspace, a symlinked or malformed `workspace-id`, several namespaces claiming the workspace.
 */
export async function resolveNanobotSessionsDir(
  options: ResolveNanobotSessionsDirOptions,
): Promise<NanobotSessionsDir> {
  const workspace = path.resolve(expandHome(options.workspace));
  const root = path.join(
    path.resolve(expandHome(options.configDir ?? path.join(homedir(), '.nanobot'))),
    'sessions',
  );
  if (root === workspace || root.startsWith(`${workspace}${path.sep}`))
    throw invalid(
      `nanobot's session folder ${root} is inside the workspace ${workspace}; nanobot refuses that layout.`,
    );
  const legacyDirs = await existingDirs([root, path.join(workspace, 'sessions')]);
  const fromFile = await readWorkspaceId(path.join(workspace, '.nanobot', 'workspace-id'));
  const id = fromFile ?? (await namespaceClaiming(workspace, root));
  if (id === undefined)
    return {
      found: false,
      reason: `nanobot has not created a session folder for ${workspace} in ${root} yet.`,
      legacyDirs,
    };
  const dir = path.join(root, id);
  const owner = await recordedWorkspace(dir);
  if (owner !== undefined && owner !== (await canonical(workspace)) && (await exists(owner)))
    return {
      found: false,
      reason: `${dir} belongs to ${owner}; this workspace is a copy of it, and nanobot gives a copy a new, empty session folder.`,
      legacyDirs,
    };
  if (!(await exists(dir)))
    return { found: false, reason: `nanobot has not created the session folder ${dir} yet.`, legacyDirs };
  return {
    found: true,
    dir,
    workspaceId: id,
    via: fromFile === undefined ? 'marker' : 'workspace-id',
    legacyDirs,
  };
}

async function readWorkspaceId(file: string): Promise<string | undefined> {
  try {
    if ((await lstat(path.dirname(file))).isSymbolicLink())
      throw invalid(
        `${path.dirname(file)} is a symlink; nanobot refuses a symlinked workspace state folder.`,
      );
    if ((await lstat(file)).isSymbolicLink()) throw invalid(`${file} is a symlink; nanobot refuses it.`);
    const id = (await readFile(file, 'utf8')).trim();
    if (!WORKSPACE_ID.test(id))
      throw invalid(`${file} does not hold a 32-character hex workspace id; restore the original id.`);
    return id;
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
}

/** The one namespace whose `.workspace` marker names this workspace (nanobot's recovery of a lost id file). */
async function namespaceClaiming(workspace: string, root: string): Promise<string | undefined> {
  const self = await canonical(workspace);
  const claims: string[] = [];
  for (const name of await readdir(root).catch(() => [])) {
    if (!WORKSPACE_ID.test(name) || (await lstat(path.join(root, name))).isSymbolicLink()) continue;
    if ((await recordedWorkspace(path.join(root, name))) === self) claims.push(name);
  }
  if (claims.length > 1)
    throw invalid(
      `Several session folders in ${root} claim ${workspace} (${claims.join(', ')}); remove the stale .workspace marker.`,
    );
  return claims[0];
}

/** The workspace a namespace's `.workspace` marker records, resolved; undefined without a readable marker. */
async function recordedWorkspace(namespace: string): Promise<string | undefined> {
  const marker = path.join(namespace, '.workspace');
  try {
    if ((await lstat(marker)).isSymbolicLink()) return undefined;
    const recorded = (await readFile(marker, 'utf8')).trim();
    return recorded === '' ? undefined : canonical(path.resolve(expandHome(recorded)));
  } catch {
    return undefined;
  }
}

async function existingDirs(dirs: readonly string[]): Promise<readonly string[]> {
  const found: string[] = [];
  for (const dir of dirs) if (await exists(dir)) found.push(dir);
  return found;
}

/** The real path when it exists (nanobot compares `samefile`), else the resolved path. */
async function canonical(file: string): Promise<string> {
  return realpath(file).catch(() => path.resolve(file));
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? path.join(homedir(), file.slice(1)) : file;
}

function invalid(message: string): ContextError {
  return new ContextError({ code: 'INVALID_INPUT', message });
}
