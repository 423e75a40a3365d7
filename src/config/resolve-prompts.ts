import type { CtxloomConfig } from './config-schema.js';
import { DEFAULT_PROMPTS, type PromptDefaults } from './prompt-defaults.js';

/**
 * The effective prompt texts: each field of the config's `prompt` section when present, else the
 * built-in default. The result is frozen; the inputs are not changed.
 */
export function resolvePrompts(config: Pick<CtxloomConfig, 'prompt'> = {}): PromptDefaults {
  const overrides = config.prompt ?? {};
  const defaults = DEFAULT_PROMPTS;
  return Object.freeze({
    personaDefaultPrompt: overrides.personaDefaultPrompt ?? defaults.personaDefaultPrompt,
    reactProtocolPrompt: overrides.reactProtocolPrompt ?? defaults.reactProtocolPrompt,
    historySemanticsPrompt: overrides.historySemanticsPrompt ?? defaults.historySemanticsPrompt,
    skillCapabilityPolicyPrompt:
      overrides.skillCapabilityPolicyPrompt ?? defaults.skillCapabilityPolicyPrompt,
    skillOnDemandPolicyPrompt: overrides.skillOnDemandPolicyPrompt ?? defaults.skillOnDemandPolicyPrompt,
    skillFallbackPolicyPrompt: overrides.skillFallbackPolicyPrompt ?? defaults.skillFallbackPolicyPrompt,
    skillResourceUsagePolicyPrompt:
      overrides.skillResourceUsagePolicyPrompt ?? defaults.skillResourceUsagePolicyPrompt,
    toolsTemplate: overrides.toolsTemplate ?? defaults.toolsTemplate,
    bootstrapFiles: Object.freeze([...(overrides.bootstrapFiles ?? defaults.bootstrapFiles)]),
  });
}
