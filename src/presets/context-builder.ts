import type { BuildCheck } from '../pipeline/build-check.js';
import { ContextPipeline, type ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import type { RequestObserver } from '../pipeline/request-observer.js';
import { type AgentPresetOptions, agentPresetOptions } from './for-agent.js';
import { type ChatPresetOptions, chatPresetOptions } from './for-chat.js';
import { type ReactPresetOptions, reactPresetOptions } from './for-react.js';
import { type SkillPresetOptions, skillPresetOptions } from './for-skill.js';

/**
 * Builds the context for one model call: providers in order, then filters (see `ContextPipeline`),
 * plus the presets of the spec as static factories.
 *
 * @example
 * const builder = new ContextBuilder({ providers: [new StaticPromptProvider({ text: 'Be brief.' })] });
 * const { messages, trace } = await builder.build({ history });
 */
export class ContextBuilder extends ContextPipeline {
  /**
   * The chat preset: persona → bootstrap files (when `runtimePrompt.includeBootstrapFiles` and a
   * workspace) → history; MaxMessages → TokenBudget. Ignores skill fields.
   * @example const builder = ContextBuilder.forChat({ systemPrompt: 'You are terse.', maxInputTokens: 8000 });
   */
  static forChat(options: ChatPresetOptions & PresetObserver = {}): ContextBuilder {
    return new ContextBuilder(withObserver(chatPresetOptions(options), options));
  }

  /**
   * The ReAct preset: persona → ReAct protocol → tools description → bootstrap files → history;
   * MaxMessages → TokenBudget. Ignores skill fields.
   * @example const builder = ContextBuilder.forReact({ toolsDesc: '- read_file: read a file', maxInputTokens: 8000 });
   */
  static forReact(options: ReactPresetOptions & PresetObserver = {}): ContextBuilder {
    return new ContextBuilder(withObserver(reactPresetOptions(options), options));
  }

  /**
   * The skill preset: persona → ReAct protocol → bootstrap files → skill set (summary,
   * full or always-only) → history; MaxMessages → TokenBudget. Without `skillSet`, the skills are
   * resolved per build: `runtimePrompt.skillsCatalog` → `runtimePrompt.skillsDir` →
   * `configSkillsDir` → `./skills` under `cwd`.
   * @example const builder = ContextBuilder.forSkill({ systemPrompt: 'You are a release bot.', mode: 'summary' });
   */
  static forSkill(options: SkillPresetOptions & PresetObserver): ContextBuilder {
    return new ContextBuilder(withObserver(skillPresetOptions(options), options));
  }

  /**
   * The workspace-agent preset (nanobot): identity → bootstrap files → tool contract → memory →
   * always-on skills → skills index → recent history → archived summary, joined into one system
   * message; then the history and the current message (media, runtime context, `$skill`); then the
   * context governor.
   * @throws ContextError `INVALID_OPTIONS` without `workspace`.
   * @example
   * const builder = ContextBuilder.forAgent({ workspace: '~/agent', channel: 'cli', contextWindowTokens: 128_000 });
   * const { messages, trace } = await builder.build({ history, current: 'Hi $context-budget', sessionKey: 'cli:direct' });
   */
  static forAgent(options: AgentPresetOptions & PresetObserver): ContextBuilder {
    return new ContextBuilder(withObserver(agentPresetOptions(options), options));
  }
}

/** The `observer` and `checks` options every preset takes besides its own. */
export type PresetObserver = {
  /** Told about every request the builder builds (a request recorder, tracing). @default none */
  readonly observer?: RequestObserver;
  /** Run on every request built; what they find is the trace's `warnings` (e.g. `VolatileContentCheck`). @default [] */
  readonly checks?: readonly BuildCheck[];
};

function withObserver(options: ContextPipelineOptions, preset: PresetObserver): ContextPipelineOptions {
  return {
    ...options,
    ...(preset.observer === undefined ? {} : { observer: preset.observer }),
    ...(preset.checks === undefined ? {} : { checks: preset.checks }),
  };
}
