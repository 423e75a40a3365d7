import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ContextBuilder } from '../presets/context-builder.js';
import { SkillsCatalog } from './skills-catalog.js';

let workspace = '';
beforeEach(() => {
  workspace = mkdtempSync(path.join(tmpdir(), 'ctxloom-skills-cache-'));
  // Every file and folder written by the test counts as settled: what is compared is their stat.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 60_000);
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(workspace, { recursive: true, force: true });
});

function writeSkill(name: string, description: string): void {
  mkdirSync(path.join(workspace, 'skills', name), { recursive: true });
  writeFileSync(
    path.join(workspace, 'skills', name, 'SKILL.md'),
    `---\ndescription: ${description}\n---\n# ${name}\n`,
  );
}

const names = (catalog: SkillsCatalog) => catalog.list().map((skill) => `${skill.name}:${skill.description}`);

describe('SkillsCatalog between listings', () => {
  it('sees skill folders added, removed and renamed, and a SKILL.md rewritten with the same size and mtime', () => {
    writeSkill('alpha', 'one');
    const catalog = new SkillsCatalog({ workspace, builtinDir: null });
    expect(names(catalog)).toEqual(['alpha:one']);
    writeSkill('beta', 'two');
    expect(names(catalog)).toEqual(['alpha:one', 'beta:two']);
    renameSync(path.join(workspace, 'skills', 'beta'), path.join(workspace, 'skills', 'gamma'));
    expect(names(catalog)).toEqual(['alpha:one', 'gamma:two']);
    rmSync(path.join(workspace, 'skills', 'alpha'), { recursive: true });
    expect(names(catalog)).toEqual(['gamma:two']);
    const file = path.join(workspace, 'skills', 'gamma', 'SKILL.md');
    const { mtime } = statSync(file);
    writeFileSync(file, '---\ndescription: TWO\n---\n# gamma\n');
    utimesSync(file, mtime, mtime);
    expect(names(catalog)).toEqual(['gamma:TWO']);
  });
});

describe('the agent preset', () => {
  it('lists the catalogue once per build for the three providers that read it', async () => {
    vi.useRealTimers();
    writeSkill('alpha', 'one');
    const catalog = new SkillsCatalog({ workspace, builtinDir: null });
    const list = vi.spyOn(catalog, 'list');
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-skills-build-'));
    try {
      const builder = ContextBuilder.forAgent({ workspace: dir, skills: { catalog }, recentHistory: false });
      const result = await builder.build({ current: 'use $alpha please' });
      expect(list).toHaveBeenCalledTimes(1);
      await builder.build({ current: 'again' });
      expect(list).toHaveBeenCalledTimes(2);
      const sections = result.trace.sections.map((row) => row.section);
      expect(sections).toContain('skills-index');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
