import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import type { Skill } from '../skills/skills-catalog.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import { ContextBuilder } from './context-builder.js';
import { chooseBuilder, resolveForLlm } from './resolve-for-llm.js';

const deploySkill: Skill = {
  name: 'deploy',
  source: 'workspace',
  root: '/ws/skills',
  path: '/ws/skills/deploy/SKILL.md',
  description: 'Deploy the site to production.',
  always: false,
  available: true,
  missing: { bins: [], env: [] },
  metadata: { requires: { bins: [], env: [] }, always: false },
  body: 'Run `npm run deploy` and check the URL.',
  frontmatter: { name: 'deploy' },
};

const ids = (builder: { providers: readonly { id: string }[] }): string[] =>
  builder.providers.map((provider) => provider.id);

describe('resolveForLlm', () => {
  it('1: uses an explicit contextBuilder before anything else', () => {
    const explicit = ContextBuilder.forChat({ systemPrompt: 'explicit' });
    const runtime = ContextBuilder.forChat({ systemPrompt: 'runtime' });
    const options = {
      contextBuilder: explicit,
      runtimePrompt: { contextBuilder: runtime, includeSkillsSummary: true },
      allowSkillContext: true,
      skillSet: [deploySkill],
      preferReact: true,
      toolsDesc: '- a',
    };
    expect(chooseBuilder(options)).toBe('explicit');
    expect(resolveForLlm(options)).toBe(explicit);
  });

  it('2: else uses runtimePrompt.contextBuilder, before skills and ReAct', () => {
    const runtime = ContextBuilder.forReact();
    const options = {
      runtimePrompt: { contextBuilder: runtime },
      allowSkillContext: true,
      skillSet: [deploySkill],
      preferReact: true,
    };
    expect(chooseBuilder(options)).toBe('runtime');
    expect(resolveForLlm(options)).toBe(runtime);
  });

  it('2: rejects a runtimePrompt.contextBuilder that is not a builder', () => {
    const call = () => resolveForLlm({ runtimePrompt: { contextBuilder: { build: 1 } } });
    expect(call).toThrow(ContextError);
    expect(call).toThrow(
      /runtimePrompt\.contextBuilder must be a ContextBuilder.*got an object with keys \[build\]/,
    );
  });

  it('3: else uses forSkill when skill context is allowed and a skill set is given', async () => {
    const options = { allowSkillContext: true, skillSet: [deploySkill], preferReact: true, toolsDesc: '- a' };
    expect(chooseBuilder(options)).toBe('skill');
    const builder = resolveForLlm(options);
    expect(ids(builder)).toContain('skills');
    const { messages } = await builder.build({});
    expect(messages.some((message) => String(message.content).includes('deploy'))).toBe(true);
  });

  it('3: also for a runtime skill request, but never without allowSkillContext', () => {
    for (const runtimePrompt of [
      { includeSkillsSummary: true },
      { includeActiveSkills: true },
      { skillsDir: '/ws/skills' },
      { skillsCatalog: { list: () => [] } },
    ]) {
      expect(chooseBuilder({ allowSkillContext: true, runtimePrompt })).toBe('skill');
      expect(chooseBuilder({ runtimePrompt })).toBe('chat');
    }
    expect(chooseBuilder({ skillSet: [deploySkill] })).toBe('chat');
    expect(chooseBuilder({ allowSkillContext: true })).toBe('chat');
  });

  it('4: else uses forReact for preferReact or a tools description', () => {
    expect(chooseBuilder({ preferReact: true })).toBe('react');
    expect(chooseBuilder({ toolsDesc: '- read_file: read' })).toBe('react');
    expect(chooseBuilder({ toolsDesc: '  ' })).toBe('chat');
    expect(ids(resolveForLlm({ preferReact: true }))).toEqual([
      'persona',
      'react-protocol',
      'tools-desc',
      'history',
      'current-message',
    ]);
  });

  it('5: else falls back to forChat, passing the preset options on', async () => {
    expect(chooseBuilder({})).toBe('chat');
    const builder = resolveForLlm({ systemPrompt: 'Plain node.', maxMessages: 2 });
    expect(ids(builder)).toEqual(['persona', 'history', 'current-message']);
    expect(builder.filters.map((filter) => filter.id)).toEqual(['sanitize-tool-calls', 'max-messages']);
    expect((await builder.build({})).messages[0]?.content).toBe('Plain node.');
    expect(ids(resolveForLlm())).toEqual(['persona', 'history', 'current-message']);
  });

  it('counts a Claude model conservatively by default, and the trace names the counter', async () => {
    const input = { history: [], current: 'Summarise the release notes in three bullet points.' };
    const claude = await resolveForLlm({ model: 'claude-sonnet-4-5' }).build(input);
    const openai = await resolveForLlm({ model: 'gpt-4o' }).build(input);
    const none = await resolveForLlm().build(input);
    expect(claude.trace.tokenCounter).toBe('scaled(1.25):estimate:o200k');
    expect(openai.trace.tokenCounter).toBe('estimate:o200k');
    expect(none.trace.tokenCounter).toBe('estimate:o200k');
    expect(claude.trace.totalTokens).toBeGreaterThanOrEqual(Math.ceil(openai.trace.totalTokens * 1.25));
    const agent = await resolveForLlm({ model: 'anthropic/claude-3-5-haiku', preferReact: true }).build(
      input,
    );
    expect(agent.trace.tokenCounter).toBe('scaled(1.25):estimate:o200k');
    const explicit = new EstimatingTokenCounter();
    const chosen = await resolveForLlm({ model: 'claude-sonnet-4-5', tokenCounter: explicit }).build(input);
    expect(chosen.trace.tokenCounter).toBe('estimate:o200k');
  });
});
