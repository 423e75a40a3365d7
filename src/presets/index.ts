/**
 * @module ctxloom/presets
 * `ContextBuilder` and its presets.
 */
export { agentOptionsFromSettings } from './agent-options-from-settings.js';
export { ContextBuilder, type PresetObserver } from './context-builder.js';
export {
  type AgentPresetOptions,
  type AgentSkillsOptions,
  agentPresetOptions,
  DEFAULT_AGENT_PRESET,
} from './for-agent.js';
export { AgentHistoryWindow, type AgentHistoryWindowOptions } from './for-agent-history-window.js';
export type { ChatPresetOptions } from './for-chat.js';
export { type ReactPresetOptions, reactPresetOptions } from './for-react.js';
export {
  resolveSkillSet,
  type SkillPresetOptions,
  type SkillSetOrigin,
  skillPresetOptions,
} from './for-skill.js';
export {
  type BuilderChoice,
  chooseBuilder,
  type ResolveForLlmOptions,
  resolveForLlm,
} from './resolve-for-llm.js';
