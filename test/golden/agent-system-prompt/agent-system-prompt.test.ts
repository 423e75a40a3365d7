import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSequentialIdGenerator, type Message } from '../../../src/core/index.js';
import { type AgentPresetOptions, ContextBuilder } from '../../../src/presets/index.js';
import type { RuntimePlatform } from '../../../src/providers/index.js';
import { BUILTIN_SKILLS_DIR, createStaticSkillEnvironment } from '../../../src/skills/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const workspaces = path.resolve(here, '../../fixtures/agent-workspaces');
const repoRoot = path.resolve(here, '../../..');
const linux: RuntimePlatform = { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' };
const windows: RuntimePlatform = { os: 'win32', arch: 'x64', nodeVersion: '20.20.2' };

type Scenario = {
  readonly name: string;
  readonly options: AgentPresetOptions;
  readonly sessionKey?: string;
  readonly summary?: { readonly text: string; readonly lastActive: string };
};

const scenarios: readonly Scenario[] = [
  {
    name: 'plain',
    options: {
      workspace: path.join(workspaces, 'plain'),
      channel: 'cli',
      platform: linux,
      skills: { builtinDir: null },
    },
  },
  {
    name: 'skills-and-memory',
    options: {
      workspace: path.join(workspaces, 'full'),
      channel: 'cli',
      platform: linux,
      skills: { builtinDir: BUILTIN_SKILLS_DIR, environment: createStaticSkillEnvironment({}) },
    },
    sessionKey: 'cli:direct',
    summary: { text: 'Summary of the archived turns', lastActive: '2026-11-29T18:20:00Z' },
  },
  {
    name: 'separate-project',
    options: {
      workspace: path.join(workspaces, 'full'),
      projectWorkspace: path.join(workspaces, 'project-repo'),
      channel: 'telegram',
      platform: linux,
      skills: { builtinDir: BUILTIN_SKILLS_DIR, environment: createStaticSkillEnvironment({ bins: ['gh'] }) },
    },
    sessionKey: 'telegram:42',
  },
  {
    name: 'windows',
    options: {
      workspace: path.join(workspaces, 'full'),
      channel: 'email',
      platform: windows,
      skills: { builtinDir: null, indexFormat: 'xml', environment: createStaticSkillEnvironment({}) },
    },
    sessionKey: 'email:ana',
  },
];

async function buildAt(scenario: Scenario, isoTime: string) {
  const builder = ContextBuilder.forAgent({
    ...scenario.options,
    generateId: createSequentialIdGenerator('m'),
    currentMessage: { runtimeMetadata: { clock: () => new Date(isoTime), channel: 'cli', chatId: 'direct' } },
  });
  return builder.build({
    current: 'What changed since yesterday?',
    ...(scenario.sessionKey === undefined ? {} : { sessionKey: scenario.sessionKey }),
    ...(scenario.summary === undefined ? {} : { summary: scenario.summary }),
  });
}

function systemPrompt(messages: readonly Message[]): string {
  const [first] = messages;
  if (first?.role !== 'system' || typeof first.content !== 'string') throw new Error('no system prompt');
  return first.content;
}

describe('agent system prompt (golden)', () => {
  for (const scenario of scenarios) {
    it(`renders the ${scenario.name} workspace byte-identically across clock times`, async () => {
      const morning = await buildAt(scenario, '2026-11-30T08:00:00Z');
      const evening = await buildAt(scenario, '2026-11-30T21:59:00Z');
      const prompt = systemPrompt(morning.messages);
      expect(systemPrompt(evening.messages)).toBe(prompt);
      // the clock did reach the build: only the current message differs
      expect(morning.messages.at(-1)?.content).not.toEqual(evening.messages.at(-1)?.content);
      expect(morning.messages.filter((message) => message.role === 'system')).toHaveLength(1);
      await expect(prompt.replaceAll(repoRoot, '<repo>')).toMatchFileSnapshot(
        `./__golden__/${scenario.name}.md`,
      );
    });
  }

  it('never prints the project folder, clock, channel id or chat id in the system prompt', async () => {
    const separate = scenarios[2];
    if (separate === undefined) throw new Error('missing scenario');
    const prompt = systemPrompt((await buildAt(separate, '2026-11-30T08:00:00Z')).messages);
    expect(prompt).not.toContain(path.join(workspaces, 'project-repo'));
    expect(prompt).toContain('This repository builds the bakery');
    expect(prompt).not.toMatch(/2026-11-30|Chat ID|telegram:42|Current Time/);
    expect(prompt).toContain(`The agent workspace is at: ${path.join(workspaces, 'full')}`);
  });

  it('records every system part with its length so the prompt can be sliced back', async () => {
    const full = scenarios[1];
    if (full === undefined) throw new Error('missing scenario');
    const { messages } = await buildAt(full, '2026-11-30T08:00:00Z');
    const [first] = messages;
    const parts = first?.metadata?.['parts'] as readonly { section: string; chars: number }[]; // shape written by JoinSystemMessagesFilter
    expect(parts.map((part) => part.section)).toEqual([
      'identity',
      'bootstrap-files',
      'tool-contract',
      'memory',
      'always-on-skills',
      'skills-index',
      'recent-history',
      'archived-summary',
    ]);
    const separators = (parts.length - 1) * '\n\n---\n\n'.length;
    expect(parts.reduce((sum, part) => sum + part.chars, 0) + separators).toBe(systemPrompt(messages).length);
  });
});
