import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PromptConfig } from './config-schema.js';
import { DEFAULT_PROMPTS, type PromptDefaults } from './prompt-defaults.js';
import { resolvePrompts } from './resolve-prompts.js';

describe('resolvePrompts', () => {
  it('returns the defaults without overrides', () => {
    expect(resolvePrompts()).toEqual(DEFAULT_PROMPTS);
    expect(resolvePrompts({})).toEqual(DEFAULT_PROMPTS);
  });

  it('merges each override over the default, field by field', () => {
    const prompt = { personaDefaultPrompt: 'You are Loom.', bootstrapFiles: ['AGENTS.md'] };
    const resolved = resolvePrompts({ prompt });
    expect(resolved).toEqual({
      ...DEFAULT_PROMPTS,
      personaDefaultPrompt: 'You are Loom.',
      bootstrapFiles: ['AGENTS.md'],
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.bootstrapFiles)).toBe(true);
    expect(prompt.bootstrapFiles).not.toBe(resolved.bootstrapFiles);
  });

  it('has a config field for every prompt default and no other', () => {
    expectTypeOf<keyof PromptConfig>().toEqualTypeOf<keyof PromptDefaults>();
  });
});
