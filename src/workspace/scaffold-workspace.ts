import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { throwIfAborted } from '../core/errors.js';
import { makeFolders } from './make-folders.js';
import { WORKSPACE_TEMPLATES } from './workspace-templates.js';

/** Options for {@link scaffoldWorkspace}. */
export type ScaffoldWorkspaceOptions = {
  /** Cancels the work between files. */
  readonly signal?: AbortSignal;
};

/** What {@link scaffoldWorkspace} did, with paths relative to the workspace (`/` separated). */
export type ScaffoldResult = {
  /** Files and folders it created. */
  readonly created: readonly string[];
  /** Files that already existed and were left untouched. */
  readonly kept: readonly string[];
};

const FOLDERS = ['memory', 'skills', 'sessions'] as const;

/**
 * Creates an agent workspace in `dir`: AGENTS.md, SOUL.md, USER.md, TOOLS.md, memory/MEMORY.md from
 * {@link WORKSPACE_TEMPLATES}, an empty memory/history.jsonl, and the skills/ and sessions/ folders.
 * Never overwrites: an existing file is kept and reported in `kept` (each file is created with an
 * exclusive flag, so a file appearing concurrently is not clobbered either).
 * @throws ContextError `INVALID_INPUT` at once when `dir` cannot be made (a file in the way, a parent
 *   that takes no new folders such as `/proc`, no permission).
 */
export async function scaffoldWorkspace(
  dir: string,
  options: ScaffoldWorkspaceOptions = {},
): Promise<ScaffoldResult> {
  const root = path.resolve(dir);
  const created: string[] = [];
  const kept: string[] = [];
  if (await makeFolders(root)) created.push('.');
  for (const folder of FOLDERS) {
    if (await makeFolders(path.join(root, folder))) created.push(`${folder}/`);
  }
  const files: readonly (readonly [string, string])[] = [
    ...Object.entries(WORKSPACE_TEMPLATES),
    ['memory/history.jsonl', ''],
  ];
  for (const [file, text] of files) {
    throwIfAborted(options.signal);
    const wrote = await writeNew(path.join(root, ...file.split('/')), text);
    (wrote ? created : kept).push(file);
  }
  return { created, kept };
}

async function writeNew(file: string, text: string): Promise<boolean> {
  try {
    await writeFile(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST')
      return false;
    throw error;
  }
}
