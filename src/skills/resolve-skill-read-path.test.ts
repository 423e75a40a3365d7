import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSkillReadPath } from './resolve-skill-read-path.js';

const root = mkdtempSync(path.join(tmpdir(), 'ctxloom-readpath-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = path.join(root, 'ws');
const builtinDir = path.join(root, 'builtin');
mkdirSync(path.join(workspace, 'skills', 'mine'), { recursive: true });
mkdirSync(path.join(builtinDir, 'shipped'), { recursive: true });
writeFileSync(path.join(workspace, 'skills', 'mine', 'SKILL.md'), 'mine');
writeFileSync(path.join(builtinDir, 'shipped', 'SKILL.md'), 'shipped');

describe('resolveSkillReadPath', () => {
  it('maps skills/<name>/… to the workspace first, then the built-in folder', () => {
    expect(resolveSkillReadPath('skills/mine/SKILL.md', { workspace, builtinDir })).toBe(
      path.join(workspace, 'skills', 'mine', 'SKILL.md'),
    );
    expect(resolveSkillReadPath('skills/shipped/SKILL.md', { workspace, builtinDir })).toBe(
      path.join(builtinDir, 'shipped', 'SKILL.md'),
    );
    expect(resolveSkillReadPath('skills/none/SKILL.md', { workspace, builtinDir })).toBe(
      path.join(workspace, 'skills', 'none', 'SKILL.md'),
    );
  });

  it('refuses paths that leave the workspace or the built-in folder', () => {
    expect(() => resolveSkillReadPath('../etc/passwd', { workspace, builtinDir })).toThrow(/leaves/);
    expect(() => resolveSkillReadPath('skills/../../x', { workspace, builtinDir })).toThrow(/leaves/);
  });
});
