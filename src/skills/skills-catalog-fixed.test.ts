import * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILTIN_SKILLS_DIR } from './builtin-skills-dir.js';
import { createStaticSkillEnvironment } from './skill-environment.js';
import { SkillsCatalog } from './skills-catalog.js';

// The catalogue's stats, observed: every call still goes to the real file system.
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, statSync: vi.fn(actual.statSync) };
});

const statted = (under: string) =>
  vi.mocked(fs.statSync).mock.calls.filter(([file]) => String(file).startsWith(under)).length;

const roots: string[] = [];
afterEach(() => {
  vi.mocked(fs.statSync).mockClear();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('SkillsCatalog and ctxloom’s own built-in skills', () => {
  it('lists and reads them once, then never stats them again', () => {
    const catalog = new SkillsCatalog({
      builtinDir: BUILTIN_SKILLS_DIR,
      environment: createStaticSkillEnvironment({}),
    });
    const first = catalog.list();
    expect(first.map((skill) => skill.name)).toEqual([
      'context-budget',
      'memory-hygiene',
      'session-debugging',
    ]);
    expect(statted(BUILTIN_SKILLS_DIR)).toBe(4); // the folder and three SKILL.md files
    vi.mocked(fs.statSync).mockClear();
    expect(catalog.list()).toEqual(first);
    expect(statted(BUILTIN_SKILLS_DIR)).toBe(0);
  });

  it('still stats another built-in folder at every call, so an edit there is seen', () => {
    const builtinDir = mkdtempSync(path.join(tmpdir(), 'ctxloom-builtin-'));
    roots.push(builtinDir);
    const write = (description: string) => {
      mkdirSync(path.join(builtinDir, 'tool'), { recursive: true });
      writeFileSync(
        path.join(builtinDir, 'tool', 'SKILL.md'),
        `---\ndescription: ${description}\n---\nbody\n`,
      );
    };
    write('first');
    const catalog = new SkillsCatalog({ builtinDir, environment: createStaticSkillEnvironment({}) });
    expect(catalog.load('tool')?.description).toBe('first');
    write('second, longer');
    expect(catalog.load('tool')?.description).toBe('second, longer');
    expect(statted(builtinDir)).toBe(4);
  });
});
