import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { BuildCheck } from '../pipeline/build-check.js';
import { ContextPipeline, type ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import type { RequestObserver } from '../pipeline/request-observer.js';
import {
  AGENT_PRESET_NESTED_OPTIONS,
  AGENT_PRESET_OPTION_KEYS,
  type AgentPresetOptions,
  agentPresetOptions,
} from './for-agent.js';
import {
  CHAT_PRESET_NESTED_OPTIONS,
  CHAT_PRESET_OPTION_KEYS,
  type ChatPresetOptions,
  chatPresetOptions,
} from './for-chat.js';
import { REACT_PRESET_OPTION_KEYS, type ReactPresetOptions, reactPresetOptions } from './for-react.js';
import { SKILL_PRESET_OPTION_KEYS, type SkillPresetOptions, skillPresetOptions } from './for-skill.js';

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
   * @throws ContextError `INVALID_OPTIONS` for an unknown option (naming it and the closest known one).
   * @example const builder = ContextBuilder.forChat({ systemPrompt: 'You are terse.', maxInputTokens: 8000 });
   */
  static forChat(options: ChatPresetOptions & PresetObserver = {}): ContextBuilder {
    checkOptions(options, {
      where: 'ContextBuilder.forChat options',
      known: { ...CHAT_PRESET_OPTION_KEYS, ...PRESET_OBSERVER_OPTION_KEYS },
      nested: CHAT_PRESET_NESTED_OPTIONS,
    });
    return presetBuilder('chat', options);
  }

  /**
   * The ReAct preset: persona → ReAct protocol → tools description → bootstrap files → history;
   * MaxMessages → TokenBudget. Ignores skill fields.
   * @throws ContextError `INVALID_OPTIONS` for an unknown option (naming it and the closest known one).
   * @example const builder = ContextBuilder.forReact({ toolsDesc: '- read_file: read a file', maxInputTokens: 8000 });
   */
  static forReact(options: ReactPresetOptions & PresetObserver = {}): ContextBuilder {
    checkOptions(options, {
      where: 'ContextBuilder.forReact options',
      known: { ...REACT_PRESET_OPTION_KEYS, ...PRESET_OBSERVER_OPTION_KEYS },
      nested: CHAT_PRESET_NESTED_OPTIONS,
    });
    return presetBuilder('react', options);
  }

  /**
   * The skill preset: persona → ReAct protocol → bootstrap files → skill set (summary,
   * full or always-only) → history; MaxMessages → TokenBudget. Without `skillSet`, the skills are
   * resolved per build: `runtimePrompt.skillsCatalog` → `runtimePrompt.skillsDir` →
   * `configSkillsDir` → `./skills` under `cwd`.
   * @throws ContextError `INVALID_OPTIONS` for an unknown option (naming it and the closest known one).
   * @example const builder = ContextBuilder.forSkill({ systemPrompt: 'You are a release bot.', mode: 'summary' });
   */
  static forSkill(options: SkillPresetOptions & PresetObserver): ContextBuilder {
    checkOptions(options, {
      where: 'ContextBuilder.forSkill options',
      known: { ...SKILL_PRESET_OPTION_KEYS, ...PRESET_OBSERVER_OPTION_KEYS },
      nested: CHAT_PRESET_NESTED_OPTIONS,
    });
    return presetBuilder('skill', options);
  }

  /**
   * The workspace-agent preset (nanobot): identity → bootstrap files → tool contract → memory →
   * always-on skills → skills index → recent history → archived summary, joined into one system
   * message; then the history and the current message (media, runtime context, `$skill`); then the
   * context governor.
   * @throws ContextError `INVALID_OPTIONS` without `workspace`, or for an unknown option (naming it
   * and the closest known one, or the nested object it belongs under, e.g. `governor`).
   * @example
   * const builder = ContextBuilder.forAgent({ workspace: '~/agent', channel: 'cli', contextWindowTokens: 128_000 });
   * const { messages, trace } = await builder.build({ history, current: 'Hi $context-budget', sessionKey: 'cli:direct' });
   */
  static forAgent(options: AgentPresetOptions & PresetObserver): ContextBuilder {
    checkOptions(options, {
      where: 'ContextBuilder.forAgent options',
      known: { ...AGENT_PRESET_OPTION_KEYS, ...PRESET_OBSERVER_OPTION_KEYS },
      nested: AGENT_PRESET_NESTED_OPTIONS,
    });
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

/**
 * The builder of a preset without checking the options' keys, for callers that checked them against
 * a wider list (`resolveForLlm` passes its skill fields to every preset, which ignores the rest). @internal
 */
export function presetBuilder(
  preset: 'chat' | 'react' | 'skill',
  options: SkillPresetOptions & PresetObserver,
): ContextBuilder {
  const pipeline =
    preset === 'chat'
      ? chatPresetOptions(options)
      : preset === 'react'
        ? reactPresetOptions(options)
        : skillPresetOptions(options);
  return new ContextBuilder(withObserver(pipeline, options));
}

/** The keys of {@link PresetObserver}, for `checkOptions`. @internal */
export const PRESET_OBSERVER_OPTION_KEYS = {
  observer: true,
  checks: true,
} as const satisfies OptionKeys<PresetObserver>;

function withObserver(options: ContextPipelineOptions, preset: PresetObserver): ContextPipelineOptions {
  return {
    ...options,
    ...(preset.observer === undefined ? {} : { observer: preset.observer }),
    ...(preset.checks === undefined ? {} : { checks: preset.checks }),
  };
}
