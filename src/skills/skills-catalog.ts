import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ContextError } from '../core/errors.js';
import { type FileStamp, fileStamp, isUnchanged } from '../workspace/file-stamp.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { BUILTIN_SKILLS_DIR } from './builtin-skills-dir.js';
import {
  type ParsedSkillFile,
  type SkillMetadata,
  type SkillRequirements,
  safeParseSkillFile,
} from './parse-skill-file.js';
import { createSkillEnvironment, type SkillEnvironment } from './skill-environment.js';

/** Where a skill was found, in precedence order: the workspace wins over extra folders, which win over built-ins. */
export type SkillSource = 'workspace' | 'extra' | 'builtin';

/** One discovered skill. Plain data. */
export type Skill = {
  /** The skill's name: its folder name. */
  readonly name: string;
  readonly source: SkillSource;
  /** The absolute folder that holds the skill folders of this source. */
  readonly root: string;
  /** The absolute path of the SKILL.md. */
  readonly path: string;
  /** The frontmatter description, or the name when there is none. */
  readonly description: string;
  /** True when the skill is flagged always-on. */
  readonly always: boolean;
  /** True when every required executable is on PATH and every required variable is non-empty. */
  readonly available: boolean;
  /** What is missing when the skill is unavailable (empty lists otherwise). */
  readonly missing: SkillRequirements;
  readonly metadata: SkillMetadata;
  /** The SKILL.md without its frontmatter, trimmed. */
  readonly body: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
};

/** A SKILL.md the catalogue skipped because it could not be parsed or read. */
export type SkillProblem = { readonly path: string; readonly error: ContextError | Error };

/** Options for {@link SkillsCatalog}. */
export type SkillsCatalogOptions = {
  /** The agent workspace; its `skills/<name>/SKILL.md` files come first. @default undefined (no workspace skills) */
  readonly workspace?: string;
  /** Extra skill folders (each holds `<name>/SKILL.md`), after the workspace, in order. @default [] */
  readonly dirs?: readonly string[];
  /** The built-in skills folder, last; `null` turns built-ins off. @default BUILTIN_SKILLS_DIR */
  readonly builtinDir?: string | null;
  /** Skill names to leave out everywhere. @default [] */
  readonly disabled?: readonly string[];
  /** PATH and environment lookups for availability. @default createSkillEnvironment() */
  readonly environment?: SkillEnvironment;
};

/** Options for {@link SkillsCatalog.list}. */
export type ListSkillsOptions = {
  /** Also return skills whose requirements are not met. @default false */
  readonly includeUnavailable?: boolean;
};

/**
 * A folder of skill folders. A fixed one (ctxloom's own built-in skills, part of the installed
 * package) is listed and read once: its files change only when the package is reinstalled.
 */
type SkillsRoot = { readonly dir: string; readonly source: SkillSource; readonly fixed?: boolean };

type CachedFile = { readonly stamp: FileStamp; readonly parsed: ReturnType<typeof safeParseSkillFile> };

/**
 * Discovers skills: `{workspace}/skills/*\/SKILL.md` (source `workspace`), then each
 * extra folder (`extra`), then the built-in folder (`builtin`); a name found earlier shadows the same
 * name later. Disabled names are removed. Within a source, skills are sorted by name (a deterministic
 * order instead of nanobot's file-system order). Each call stats the folders and the SKILL.md files;
 * a folder is listed again and a SKILL.md re-read only when its stat changed. ctxloom's own built-in
 * skills (the default `builtinDir`) are part of the installed package, like its code: they are
 * listed and read once per catalogue, not stat'ed at every call. Invalid SKILL.md files
 * are skipped and reported by {@link SkillsCatalog.problems}.
 *
 * @example
 * const catalog = new SkillsCatalog({ workspace: './my-agent', disabled: ['weather'] });
 * for (const skill of catalog.list({ includeUnavailable: true })) console.log(skill.name, skill.available);
 */
export class SkillsCatalog {
  readonly #roots: readonly SkillsRoot[];
  readonly #disabled: ReadonlySet<string>;
  readonly #environment: SkillEnvironment;
  readonly #files = new Map<string, CachedFile>();
  /** Each root's folder names as last listed, with the root's stat then. */
  readonly #folders = new Map<string, { readonly stamp: FileStamp; readonly names: readonly string[] }>();
  #problems: readonly SkillProblem[] = [];

  constructor(options: SkillsCatalogOptions = {}) {
    const builtin = options.builtinDir === undefined ? BUILTIN_SKILLS_DIR : options.builtinDir;
    this.#roots = [
      ...(options.workspace === undefined
        ? []
        : [{ dir: path.resolve(options.workspace, 'skills'), source: 'workspace' as const }]),
      ...(options.dirs ?? []).map((dir) => ({ dir: path.resolve(dir), source: 'extra' as const })),
      ...(builtin === null ? [] : [builtinRoot(path.resolve(builtin))]),
    ];
    this.#disabled = new Set(options.disabled ?? []);
    this.#environment = options.environment ?? createSkillEnvironment();
  }

  /** The skills, in precedence order; unavailable ones only with `includeUnavailable`. */
  list(options: ListSkillsOptions = {}): readonly Skill[] {
    const all = this.#discover();
    return options.includeUnavailable === true ? all : all.filter((skill) => skill.available);
  }

  /** One skill by name (available or not); `undefined` when unknown or disabled. */
  load(name: string): Skill | undefined {
    return this.#discover().find((skill) => skill.name === name);
  }

  /** The SKILL.md files skipped by the last listing, with the reason. */
  problems(): readonly SkillProblem[] {
    return this.#problems;
  }

  #discover(): readonly Skill[] {
    const seen = new Set<string>();
    const skills: Skill[] = [];
    const problems: SkillProblem[] = [];
    for (const root of this.#roots) {
      for (const name of this.#listFolders(root, problems)) {
        if (seen.has(name) || this.#disabled.has(name)) continue;
        const file = path.join(root.dir, name, 'SKILL.md');
        const parsed = this.#read(file, { problems, fixed: root.fixed === true });
        if (parsed === undefined) continue;
        if (!parsed.success) {
          problems.push({ path: file, error: parsed.error });
          continue;
        }
        seen.add(name);
        skills.push(this.#toSkill({ name, file, root: root.dir, source: root.source, parsed: parsed.value }));
      }
    }
    this.#problems = problems;
    return skills;
  }

  /**
   * The names of the skill folders in `dir` (sorted; hidden ones left out), listed again only when
   * the folder's stat changed (adding, removing or renaming an entry does); `[]` when it is missing.
   * A fixed root, once listed, is not stat'ed again.
   */
  #listFolders(root: SkillsRoot, problems: SkillProblem[]): readonly string[] {
    const { dir } = root;
    if (root.fixed === true) {
      const listed = this.#folders.get(dir);
      if (listed !== undefined) return listed.names;
    }
    try {
      // A missing folder is the common case: one stat that makes no error object, then nothing to list.
      const stats = statSync(dir, { throwIfNoEntry: false });
      if (stats === undefined) return [];
      const stamp = fileStamp(stats);
      const cached = this.#folders.get(dir);
      if (cached !== undefined && isUnchanged(cached.stamp, stamp)) return cached.names;
      const names = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
        .map((entry) => entry.name)
        .filter((name) => !name.startsWith('.'))
        .sort();
      this.#folders.set(dir, { stamp, names });
      return names;
    } catch (error) {
      // A skills folder that does not exist is normal; one that cannot be read is reported.
      if (!isMissingFileError(error)) problems.push({ path: dir, error: asError(error) });
      return [];
    }
  }

  /**
   * Parses a SKILL.md (cached by its stat; a file of a fixed root, once read, is not stat'ed again);
   * a missing file is skipped, any other failure is a problem.
   */
  #read(
    file: string,
    { problems, fixed }: { readonly problems: SkillProblem[]; readonly fixed: boolean },
  ): ReturnType<typeof safeParseSkillFile> | undefined {
    if (fixed) {
      const read = this.#files.get(file);
      if (read !== undefined) return read.parsed;
    }
    try {
      const stats = statSync(file, { throwIfNoEntry: false });
      if (stats === undefined || !stats.isFile()) return undefined;
      const stamp = fileStamp(stats);
      const cached = this.#files.get(file);
      if (isUnchanged(cached?.stamp, stamp)) return cached?.parsed;
      const parsed = safeParseSkillFile(readFileSync(file, 'utf8'));
      this.#files.set(file, { stamp, parsed });
      return parsed;
    } catch (error) {
      if (!isMissingFileError(error)) problems.push({ path: file, error: asError(error) });
      return undefined;
    }
  }

  #toSkill(found: {
    readonly name: string;
    readonly file: string;
    readonly root: string;
    readonly source: SkillSource;
    readonly parsed: ParsedSkillFile;
  }): Skill {
    const { requires } = found.parsed.metadata;
    const missing = {
      bins: requires.bins.filter((bin) => !this.#environment.isOnPath(bin)),
      env: requires.env.filter((name) => (this.#environment.readEnv(name) ?? '') === ''),
    };
    return {
      name: found.name,
      source: found.source,
      root: found.root,
      path: found.file,
      description: found.parsed.description ?? found.name,
      always: found.parsed.metadata.always,
      available: missing.bins.length === 0 && missing.env.length === 0,
      missing,
      metadata: found.parsed.metadata,
      body: found.parsed.body,
      frontmatter: found.parsed.frontmatter,
    };
  }
}

/** The built-in root `dir`: fixed when it is ctxloom's own folder. */
function builtinRoot(dir: string): SkillsRoot {
  return { dir, source: 'builtin', fixed: dir === BUILTIN_SKILLS_DIR };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
