/**
 * @module ctxloom/config
 * Prompt defaults, the `ctxloom.yaml` schema and the config loader.
 */
export { DEFAULT_PROMPTS, type PromptDefaults } from './prompt-defaults.js';
