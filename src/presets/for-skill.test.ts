import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { BuildInput } from '../pipeline/build-input.js';
import { createStaticSkillEnvironment } from '../skills/skill-environment.js';
import { SkillsCatalog } from '../skills/skills-catalog.js';
import { testSkill } from '../skills/test-skill.js';
import { ContextBuilder } from './context-builder.js';
import { resolveSkillSet } from './for-skill.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding `skills/<name>/SKILL.md` for each name. */
function skillsRoot(...names: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'ctxloom-forskill-'));
  dirs.push(root);
  for (const name of names) {
    mkdirSync(path.join(root, 'skills', name), { recursive: true });
    writeFileSync(
      path.join(root, 'skills', name, 'SKILL.md'),
      `---\ndescription: ${name} skill\n---\n# ${name}\n`,
    );
  }
  return root;
}

const names = (input: BuildInput, options: Parameters<typeof resolveSkillSet>[1]) =>
  resolveSkillSet(input, options).skills.map((skill) => skill.name);

describe('resolveSkillSet (Jianmu §6 precedence)', () => {
  const environment = createStaticSkillEnvironment({});
  const fromCatalog = skillsRoot('from-catalog');
  const fromRuntimeDir = skillsRoot('from-runtime-dir');
  const fromConfig = skillsRoot('from-config');
  const fromCwd = skillsRoot('from-cwd');
  const catalog = new SkillsCatalog({
    dirs: [path.join(fromCatalog, 'skills')],
    builtinDir: null,
    environment,
  });
  const base = { environment, cwd: fromCwd, configSkillsDir: path.join(fromConfig, 'skills') };

  it('prefers an explicit skill set over everything discovered', () => {
    const runtimePrompt = { skillsCatalog: catalog, skillsDir: path.join(fromRuntimeDir, 'skills') };
    expect(names({ runtimePrompt }, { ...base, skillSet: [testSkill('explicit')] })).toEqual(['explicit']);
  });

  it('then runtimePrompt.skillsCatalog, then skillsDir, then the config path, then ./skills under cwd', () => {
    const runtimeDir = path.join(fromRuntimeDir, 'skills');
    expect(names({ runtimePrompt: { skillsCatalog: catalog, skillsDir: runtimeDir } }, base)).toEqual([
      'from-catalog',
    ]);
    expect(names({ runtimePrompt: { skillsDir: runtimeDir } }, base)).toEqual(['from-runtime-dir']);
    expect(names({}, base)).toEqual(['from-config']);
    expect(names({}, { environment, cwd: fromCwd })).toEqual(['from-cwd']);
    expect(resolveSkillSet({}, { environment, cwd: fromCwd }).origin).toBe('cwd');
  });

  it("lets the build input's runtimePrompt override the preset's", () => {
    const preset = { ...base, runtimePrompt: { skillsDir: path.join(fromConfig, 'skills') } };
    expect(names({ runtimePrompt: { skillsDir: path.join(fromRuntimeDir, 'skills') } }, preset)).toEqual([
      'from-runtime-dir',
    ]);
  });
});

describe('ContextBuilder.forSkill', () => {
  it('chains persona → ReAct protocol → skills → history and renders the resolved skills', async () => {
    const builder = ContextBuilder.forSkill({
      systemPrompt: 'You ship releases.',
      cwd: skillsRoot('release'),
      environment: createStaticSkillEnvironment({}),
      generateId: createSequentialIdGenerator('m'),
    });
    const { messages, trace } = await builder.build({ current: 'go' });
    expect(trace.stages.filter((stage) => stage.kind === 'provider').map((stage) => stage.id)).toEqual([
      'persona',
      'react-protocol',
      'skills',
      'history',
      'current-message',
    ]);
    expect(messages[0]?.content).toBe('You ship releases.');
    expect(messages.find((message) => message.metadata?.['section'] === 'skills')?.content).toContain(
      '**release** — release skill',
    );
  });

  it('honours includeSkillsSummary and includeActiveSkills at run time', async () => {
    const builder = ContextBuilder.forSkill({
      skillSet: [testSkill('a'), testSkill('pinned', { always: true })],
    });
    const hidden = await builder.build({ runtimePrompt: { includeSkillsSummary: false } });
    expect(hidden.messages.some((message) => message.metadata?.['section'] === 'skills')).toBe(false);
    const active = await builder.build({
      runtimePrompt: { includeSkillsSummary: false, includeActiveSkills: true },
    });
    expect(active.messages.map((message) => message.content)).toContain(
      '# Active Skills\n\n### Skill: pinned\n\n# pinned\n\nDo the pinned thing.',
    );
  });
});
