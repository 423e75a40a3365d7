import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS } from './prompt-defaults.js';

describe('DEFAULT_PROMPTS', () => {
  it('is frozen, including the bootstrap file list', () => {
    expect(Object.isFrozen(DEFAULT_PROMPTS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_PROMPTS.bootstrapFiles)).toBe(true);
  });

  it('has the spec defaults for the persona, the tools template and the bootstrap files', () => {
    expect(DEFAULT_PROMPTS.personaDefaultPrompt).toBe('You are a helpful assistant.');
    expect(DEFAULT_PROMPTS.toolsTemplate).toBe('Available tools:\n{tools_desc}');
    expect(DEFAULT_PROMPTS.bootstrapFiles).toEqual(['AGENTS.md', 'SOUL.md', 'USER.md', 'TOOLS.md']);
  });

  it('defines the Final Answer format and explains both history annotations', () => {
    expect(DEFAULT_PROMPTS.reactProtocolPrompt).toContain('Final Answer:');
    expect(DEFAULT_PROMPTS.historySemanticsPrompt).toContain('self_tool_plan');
    expect(DEFAULT_PROMPTS.historySemanticsPrompt).toContain('tool_observation');
    expect(DEFAULT_PROMPTS.skillOnDemandPolicyPrompt).toContain('SKILL.md');
  });

  it('keeps every text non-blank and short', () => {
    for (const [key, value] of Object.entries(DEFAULT_PROMPTS)) {
      if (typeof value !== 'string') continue;
      expect(value.trim().length, key).toBeGreaterThan(0);
      expect(value.length, key).toBeLessThan(800);
    }
  });
});
