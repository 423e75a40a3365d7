/**
 * @module ctxloom/config
 * Prompt defaults, the `ctxloom.yaml` schema and the config loader.
 */
export {
  type AgentConfig,
  agentConfigSchema,
  type CtxloomConfig,
  ctxloomConfigSchema,
  type PromptConfig,
  promptConfigSchema,
  type TokenCounterConfig,
  tokenCounterConfigSchema,
} from './config-schema.js';
export { type CreateTokenCounterOptions, createTokenCounter } from './create-token-counter.js';
export { type ConfigProblem, describeConfigIssue } from './describe-config-issue.js';
export {
  CONFIG_FILE_NAME,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from './load-config.js';
export { parseConfig } from './parse-config.js';
export { DEFAULT_PROMPTS, type PromptDefaults } from './prompt-defaults.js';
export { type AgentSettings, resolveAgentSettings } from './resolve-agent-settings.js';
export { resolvePrompts } from './resolve-prompts.js';
