import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scaffoldWorkspace } from './scaffold-workspace.js';
import { matchesWorkspaceTemplate, WORKSPACE_TEMPLATES } from './workspace-templates.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxloom-init-'));
  dirs.push(dir);
  return dir;
}

describe('scaffoldWorkspace', () => {
  it('creates the templates, an empty history log and the folders', async () => {
    const dir = path.join(tempDir(), 'agent');
    const result = await scaffoldWorkspace(dir);
    expect(result.created).toEqual([
      '.',
      'memory/',
      'skills/',
      'sessions/',
      'AGENTS.md',
      'SOUL.md',
      'USER.md',
      'TOOLS.md',
      'memory/MEMORY.md',
      'memory/history.jsonl',
    ]);
    expect(result.kept).toEqual([]);
    expect(readFileSync(path.join(dir, 'SOUL.md'), 'utf8')).toBe(WORKSPACE_TEMPLATES['SOUL.md']);
    expect(readFileSync(path.join(dir, 'memory', 'history.jsonl'), 'utf8')).toBe('');
  });

  it('never overwrites an existing file and reports it as kept', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'SOUL.md'), 'mine');
    const result = await scaffoldWorkspace(dir);
    expect(result.kept).toEqual(['SOUL.md']);
    expect(result.created).not.toContain('.');
    expect(readFileSync(path.join(dir, 'SOUL.md'), 'utf8')).toBe('mine');
    const again = await scaffoldWorkspace(dir);
    expect(again.created).toEqual([]);
    expect(existsSync(path.join(dir, 'skills'))).toBe(true);
  });
});

describe('matchesWorkspaceTemplate', () => {
  it('matches untouched templates whatever the surrounding whitespace', () => {
    expect(
      matchesWorkspaceTemplate({ file: 'AGENTS.md', content: `\n\n${WORKSPACE_TEMPLATES['AGENTS.md']}  \n` }),
    ).toBe(true);
    expect(
      matchesWorkspaceTemplate({ file: 'AGENTS.md', content: `${WORKSPACE_TEMPLATES['AGENTS.md']}- more` }),
    ).toBe(false);
    expect(matchesWorkspaceTemplate({ file: 'USER.md', content: WORKSPACE_TEMPLATES['AGENTS.md'] })).toBe(
      false,
    );
    expect(matchesWorkspaceTemplate({ file: 'constructor', content: 'x' })).toBe(false);
    expect(matchesWorkspaceTemplate({ file: 'NOTES.md', content: 'x\n', extraTemplates: ['x'] })).toBe(true);
  });
});
