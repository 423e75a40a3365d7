import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolveInside } from '../workspace/safe-path.js';
import { BUILTIN_SKILLS_DIR } from './builtin-skills-dir.js';

/** Options for {@link resolveSkillReadPath}. */
export type ResolveSkillReadPathOptions = {
  /** The agent workspace. */
  readonly workspace: string;
  /** The built-in skills folder. @default BUILTIN_SKILLS_DIR */
  readonly builtinDir?: string;
};

/**
 * Maps a path the model read from the skills index onto a real file, for a host's `read_file` tool:
 * relative paths resolve inside the workspace; a relative `skills/<name>/…` path that does not exist
 * there falls back to the built-in skills folder (the index prints both roots as `skills`).
 * @throws ContextError `UNSAFE_PATH` when the path leaves the workspace (or the built-in folder).
 */
export function resolveSkillReadPath(relativePath: string, options: ResolveSkillReadPathOptions): string {
  if (path.isAbsolute(relativePath)) return relativePath;
  const inWorkspace = resolveInside(options.workspace, relativePath);
  if (existsSync(inWorkspace)) return inWorkspace;
  const parts = relativePath.split(/[\\/]+/);
  if (parts[0] !== 'skills' || parts.length < 2) return inWorkspace;
  const builtin = resolveInside(options.builtinDir ?? BUILTIN_SKILLS_DIR, parts.slice(1).join('/'));
  return existsSync(builtin) ? builtin : inWorkspace;
}
