import { assertNever } from '../core/assert-never.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { PromptRuntimeContext } from '../pipeline/build-input.js';
import { ContextPipeline } from '../pipeline/context-pipeline.js';
import { presetBuilder } from './context-builder.js';
import { CHAT_PRESET_NESTED_OPTIONS } from './for-chat.js';
import { SKILL_PRESET_OPTION_KEYS, type SkillPresetOptions } from './for-skill.js';

/**
 * Options for {@link resolveForLlm}: how an LLM node chooses its builder. The preset
 * options are passed on to the chosen preset (`forChat` and `forReact` ignore the skill fields).
 */
export type ResolveForLlmOptions = SkillPresetOptions & {
  /** A builder to use as is (priority 1). @default none */
  readonly contextBuilder?: ContextPipeline;
  /** Allow the skill-aware preset (priority 3). @default false */
  readonly allowSkillContext?: boolean;
  /** Prefer ReAct semantics even before a tool description is known (priority 4). @default false */
  readonly preferReact?: boolean;
};

/** The keys of {@link ResolveForLlmOptions}, for `checkOptions`. @internal */
export const RESOLVE_FOR_LLM_OPTION_KEYS = {
  ...SKILL_PRESET_OPTION_KEYS,
  contextBuilder: true,
  allowSkillContext: true,
  preferReact: true,
} as const satisfies OptionKeys<ResolveForLlmOptions>;

/** Which branch of the priority chain {@link resolveForLlm} takes. */
export type BuilderChoice = 'explicit' | 'runtime' | 'skill' | 'react' | 'chat';

/**
 * The branch of the priority chain the options select:
 * 1. `contextBuilder` → `explicit`;
 * 2. else `runtimePrompt.contextBuilder` → `runtime`;
 * 3. else `allowSkillContext` and (a `skillSet` or a runtime skill request: `skillsCatalog`,
 *    `skillsDir`, `includeSkillsSummary` or `includeActiveSkills` in `runtimePrompt`) → `skill`;
 * 4. else `preferReact` or a non-empty `toolsDesc` → `react`;
 * 5. else → `chat`.
 */
export function chooseBuilder(options: ResolveForLlmOptions): BuilderChoice {
  if (options.contextBuilder !== undefined) return 'explicit';
  const runtimeBuilder = options.runtimePrompt?.contextBuilder;
  if (runtimeBuilder !== undefined && runtimeBuilder !== null) return 'runtime';
  if (
    options.allowSkillContext === true &&
    (options.skillSet !== undefined || hasSkillRequest(options.runtimePrompt))
  ) {
    return 'skill';
  }
  if (options.preferReact === true || (options.toolsDesc !== undefined && options.toolsDesc.trim() !== ''))
    return 'react';
  return 'chat';
}

/**
 * Chooses the builder for an LLM call with this exact priority chain (see
 * {@link chooseBuilder}). A simple LLM node passes nothing and gets `forChat`; an agent node passes
 * `preferReact: true` and gets `forReact`.
 * @throws ContextError `INVALID_OPTIONS` when `runtimePrompt.contextBuilder` is not a ContextBuilder, or
 * for an unknown option (naming it and the closest known one).
 * @example const builder = resolveForLlm({ preferReact: true, maxInputTokens: 8000 });
 */
export function resolveForLlm(options: ResolveForLlmOptions = {}): ContextPipeline {
  checkOptions(options, {
    where: 'resolveForLlm options',
    known: RESOLVE_FOR_LLM_OPTION_KEYS,
    nested: CHAT_PRESET_NESTED_OPTIONS,
  });
  if (options.contextBuilder !== undefined) return options.contextBuilder;
  const choice = chooseBuilder(options);
  switch (choice) {
    case 'runtime':
      return runtimeBuilder(options.runtimePrompt?.contextBuilder);
    case 'skill':
      return presetBuilder('skill', options);
    case 'react':
      return presetBuilder('react', options);
    case 'chat':
      return presetBuilder('chat', options);
    case 'explicit':
      throw new ContextError({
        code: 'UNEXPECTED',
        message: 'chooseBuilder chose an explicit builder that is not set.',
      });
    default:
      return assertNever(choice);
  }
}

function hasSkillRequest(runtimePrompt: PromptRuntimeContext | undefined): boolean {
  if (runtimePrompt === undefined) return false;
  return (
    (runtimePrompt.skillsCatalog !== undefined && runtimePrompt.skillsCatalog !== null) ||
    (runtimePrompt.skillsDir !== undefined && runtimePrompt.skillsDir !== '') ||
    runtimePrompt.includeSkillsSummary === true ||
    runtimePrompt.includeActiveSkills === true
  );
}

function runtimeBuilder(value: unknown): ContextPipeline {
  if (value instanceof ContextPipeline) return value;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `runtimePrompt.contextBuilder must be a ContextBuilder (e.g. ContextBuilder.forChat()), got ${describe(value)}.`,
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object with keys [${Object.keys(value).join(', ')}]`;
  return typeof value;
}
