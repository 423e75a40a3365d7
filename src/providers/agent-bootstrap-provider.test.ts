import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKSPACE_TEMPLATES } from '../workspace/workspace-templates.js';
import { AgentBootstrapProvider, type AgentBootstrapProviderOptions } from './agent-bootstrap-provider.js';
import { testBuildContext } from './test-context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(files: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxloom-bootstrap-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function render(options: AgentBootstrapProviderOptions) {
  const {
    messages: [message],
  } = await new AgentBootstrapProvider(options).getMessages({}, testBuildContext());
  return message;
}

describe('AgentBootstrapProvider', () => {
  it('embeds AGENTS.md, SOUL.md and USER.md in order, as nanobot reads them, as ## blocks', async () => {
    const dir = workspace({
      'AGENTS.md': '\nRules\n',
      'SOUL.md': '# Soul\r\n\r\nCalm.\r\n',
      'USER.md': 'Ana.\rOld Mac line end',
      'TOOLS.md': 'Tools.',
    });
    const message = await render({ workspace: dir });
    // nanobot: "## {name}\n\n{file as read in text mode}" joined by "\n\n" (CRLF and CR become LF)
    expect(message?.content).toBe(
      '## AGENTS.md\n\n\nRules\n\n\n## SOUL.md\n\n# Soul\n\nCalm.\n\n\n## USER.md\n\nAna.\nOld Mac line end',
    );
    expect(message?.metadata?.['files']).toEqual(['AGENTS.md', 'SOUL.md', 'USER.md']);
  });

  it('skips AGENTS.md and USER.md that equal their template but keeps a template SOUL.md', async () => {
    const dir = workspace({
      'AGENTS.md': `\n${WORKSPACE_TEMPLATES['AGENTS.md']}\n\n`,
      'SOUL.md': WORKSPACE_TEMPLATES['SOUL.md'],
      'USER.md': WORKSPACE_TEMPLATES['USER.md'],
    });
    const message = await render({ workspace: dir });
    expect(message?.content).toBe(`## SOUL.md\n\n${WORKSPACE_TEMPLATES['SOUL.md']}`);
    expect(message?.metadata?.['skipped']).toEqual([
      { file: 'AGENTS.md', reason: 'template' },
      { file: 'USER.md', reason: 'template' },
    ]);
  });

  it('treats an edited template as user content', async () => {
    const dir = workspace({ 'USER.md': `${WORKSPACE_TEMPLATES['USER.md']}- Pets: a cat\n` });
    expect(await render({ workspace: dir })).toMatchObject({ content: expect.stringContaining('a cat') });
  });

  it('reads AGENTS.md from the project only, with no fallback to the agent workspace', async () => {
    const agent = workspace({ 'AGENTS.md': 'agent rules', 'SOUL.md': 'soul' });
    const project = workspace({});
    const message = await render({ workspace: agent, projectWorkspace: project });
    expect(message?.content).toBe('## SOUL.md\n\nsoul');
    const withRules = workspace({ 'AGENTS.md': 'project rules', 'SOUL.md': 'project soul is ignored' });
    const both = await render({ workspace: agent, projectWorkspace: withRules });
    expect(both?.content).toBe('## AGENTS.md\n\nproject rules\n\n## SOUL.md\n\nsoul');
  });

  it('loads TOOLS.md only when enabled', async () => {
    const dir = workspace({ 'TOOLS.md': 'Use rg.' });
    expect(await render({ workspace: dir })).toBeUndefined();
    expect((await render({ workspace: dir, includeToolsFile: true }))?.content).toBe(
      '## TOOLS.md\n\nUse rg.',
    );
  });

  it('swaps a legacy SOUL.md for the current template and honours extra templates', async () => {
    const dir = workspace({ 'SOUL.md': 'Old soul v1\r\n', 'AGENTS.md': ' Their template\r\n' });
    const message = await render({
      workspace: dir,
      legacySoulTemplates: ['\nOld soul v1'],
      extraTemplates: { 'AGENTS.md': ['Their template\n'] },
    });
    expect(message?.content).toBe(`## SOUL.md\n\n${WORKSPACE_TEMPLATES['SOUL.md']}`);
    const theirs = await render({
      workspace: dir,
      legacySoulTemplates: ['Old soul v1'],
      soulTemplate: 'New\r\n',
    });
    expect(theirs?.content).toBe('## AGENTS.md\n\n Their template\n\n\n## SOUL.md\n\nNew\n');
  });

  it('skips blank files, caps long ones with a visible marker, and honours includeBootstrapFiles', async () => {
    const dir = workspace({ 'SOUL.md': '   \n', 'USER.md': 'x'.repeat(50) });
    const message = await render({ workspace: dir, maxFileChars: 10 });
    expect(message?.content).toBe(
      `## USER.md\n\n${'x'.repeat(10)}\n\n[... truncated: USER.md is 50 chars; showing the first 10]`,
    );
    const provider = new AgentBootstrapProvider({ workspace: dir });
    expect(
      (await provider.getMessages({ runtimePrompt: { includeBootstrapFiles: false } }, testBuildContext()))
        .messages,
    ).toEqual([]);
    expect(() => new AgentBootstrapProvider({ workspace: dir, maxFileChars: 0 })).toThrow(/positive integer/);
  });
});
