import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_SKILLS_DIR } from './builtin-skills-dir.js';
import { createStaticSkillEnvironment } from './skill-environment.js';
import { SkillsCatalog } from './skills-catalog.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxloom-skills-'));
  roots.push(dir);
  return dir;
}

function writeSkill(dir: string, name: string, frontmatter: string, body = `# ${name}`): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}\n`);
}

describe('SkillsCatalog', () => {
  it('lets workspace skills shadow extra skills, which shadow built-ins', () => {
    const workspace = tempDir();
    const extra = tempDir();
    const builtin = tempDir();
    writeSkill(path.join(workspace, 'skills'), 'shared', 'description: from workspace');
    writeSkill(extra, 'shared', 'description: from extra');
    writeSkill(extra, 'only-extra', 'description: extra');
    writeSkill(builtin, 'shared', 'description: from builtin');
    writeSkill(builtin, 'only-extra', 'description: builtin copy');
    writeSkill(builtin, 'only-builtin', 'description: builtin');
    const catalog = new SkillsCatalog({ workspace, dirs: [extra], builtinDir: builtin });
    expect(catalog.list().map((skill) => [skill.name, skill.source, skill.description])).toEqual([
      ['shared', 'workspace', 'from workspace'],
      ['only-extra', 'extra', 'extra'],
      ['only-builtin', 'builtin', 'builtin'],
    ]);
  });

  it('flags unavailable skills with the missing executables and variables', () => {
    const workspace = tempDir();
    const skills = path.join(workspace, 'skills');
    writeSkill(
      skills,
      'gh',
      'metadata: {"nanobot":{"requires":{"bins":["gh","git"],"env":["GH_TOKEN","EMPTY"]}}}',
    );
    writeSkill(skills, 'ok', 'metadata: {"nanobot":{"requires":{"bins":["git"],"env":["SET"]}}}');
    const environment = createStaticSkillEnvironment({ bins: ['git'], env: { SET: 'x', EMPTY: '' } });
    const catalog = new SkillsCatalog({ workspace, builtinDir: null, environment });
    expect(catalog.list().map((skill) => skill.name)).toEqual(['ok']);
    const gh = catalog.list({ includeUnavailable: true }).find((skill) => skill.name === 'gh');
    expect(gh).toMatchObject({ available: false, missing: { bins: ['gh'], env: ['GH_TOKEN', 'EMPTY'] } });
    expect(catalog.load('gh')?.available).toBe(false);
  });

  it('removes disabled skills from listing and loading', () => {
    const workspace = tempDir();
    writeSkill(path.join(workspace, 'skills'), 'off', 'description: disabled');
    writeSkill(path.join(workspace, 'skills'), 'on', 'description: enabled');
    const catalog = new SkillsCatalog({ workspace, builtinDir: null, disabled: ['off'] });
    expect(catalog.list().map((skill) => skill.name)).toEqual(['on']);
    expect(catalog.load('off')).toBeUndefined();
  });

  it('uses the folder name as the skill name and the name as the fallback description', () => {
    const workspace = tempDir();
    writeSkill(path.join(workspace, 'skills'), 'folder-name', 'name: other-name');
    const [skill] = new SkillsCatalog({ workspace, builtinDir: null }).list();
    expect(skill).toMatchObject({ name: 'folder-name', description: 'folder-name' });
  });

  it('skips folders without SKILL.md and reports invalid files instead of failing', () => {
    const workspace = tempDir();
    const skills = path.join(workspace, 'skills');
    mkdirSync(path.join(skills, 'empty'), { recursive: true });
    writeSkill(skills, 'broken', 'name: [oops');
    writeSkill(skills, 'good', 'description: fine');
    writeFileSync(path.join(skills, 'stray.md'), 'not a folder');
    const catalog = new SkillsCatalog({ workspace, builtinDir: null });
    expect(catalog.list().map((skill) => skill.name)).toEqual(['good']);
    expect(catalog.problems()).toHaveLength(1);
    expect(catalog.problems()[0]?.path).toBe(path.join(skills, 'broken', 'SKILL.md'));
  });

  it('reports a SKILL.md that cannot be read instead of dropping it silently', () => {
    const workspace = tempDir();
    const folder = path.join(workspace, 'skills', 'looped');
    mkdirSync(folder, { recursive: true });
    symlinkSync(path.join(folder, 'SKILL.md'), path.join(folder, 'SKILL.md'));
    const catalog = new SkillsCatalog({ workspace, builtinDir: null });
    expect(catalog.list()).toEqual([]);
    expect(
      catalog.problems().map((problem) => [problem.path, (problem.error as NodeJS.ErrnoException).code]),
    ).toEqual([[path.join(folder, 'SKILL.md'), 'ELOOP']]);
  });

  it('tolerates missing folders and refuses names that are not listed', () => {
    const catalog = new SkillsCatalog({
      workspace: path.join(tempDir(), 'nope'),
      dirs: ['/does/not/exist'],
      builtinDir: null,
    });
    expect(catalog.list({ includeUnavailable: true })).toEqual([]);
    expect(catalog.load('../../etc')).toBeUndefined();
  });

  it('picks up an edited SKILL.md on the next listing', () => {
    const workspace = tempDir();
    const skills = path.join(workspace, 'skills');
    writeSkill(skills, 'live', 'description: first');
    const catalog = new SkillsCatalog({ workspace, builtinDir: null });
    expect(catalog.load('live')?.description).toBe('first');
    writeSkill(skills, 'live', 'description: second version');
    expect(catalog.load('live')?.description).toBe('second version');
  });

  it('ships built-in skills that parse and are available', () => {
    const catalog = new SkillsCatalog({
      builtinDir: BUILTIN_SKILLS_DIR,
      environment: createStaticSkillEnvironment({}),
    });
    const names = catalog.list().map((skill) => skill.name);
    expect(names).toEqual(['context-budget', 'memory-hygiene', 'session-debugging']);
    expect(catalog.problems()).toEqual([]);
    for (const skill of catalog.list()) expect(skill.description.length).toBeGreaterThan(20);
  });
});
