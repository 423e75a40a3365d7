import path from 'node:path';
import type { OptionKeys } from '../core/check-options.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import {
  type SkillSetMode,
  SkillSetPromptProvider,
  type SkillSetPromptProviderOptions,
} from '../providers/skill-set-prompt-provider.js';
import type { SkillsIndexFormat } from '../skills/render-skills-index.js';
import type { SkillEnvironment } from '../skills/skill-environment.js';
import { type Skill, SkillsCatalog } from '../skills/skills-catalog.js';
import {
  bootstrapProviders,
  budgetFilters,
  historyProviders,
  personaProvider,
  pipelineOptions,
  presetPrompts,
} from './for-chat.js';
import { REACT_PRESET_OPTION_KEYS, type ReactPresetOptions, reactProviders } from './for-react.js';

/** Options for `ContextBuilder.forSkill`. */
export type SkillPresetOptions = ReactPresetOptions & {
  /** An explicit skill set; beats anything discovered at run time. @default none (runtime resolution) */
  readonly skillSet?: readonly Skill[] | undefined;
  /** How the skill set renders. @default 'summary' */
  readonly mode?: SkillSetMode;
  /** Add the ReAct protocol block. @default true */
  readonly includeReactProtocol?: boolean;
  /** The static config's `paths.skillsDir` (third in the resolution order). @default none */
  readonly configSkillsDir?: string;
  /** The folder whose `skills/` is the last fallback. @default process.cwd() */
  readonly cwd?: string;
  /** Availability lookups for discovered skills. @default the process's PATH and environment */
  readonly environment?: SkillEnvironment;
  /** Index format. @default 'markdown' */
  readonly indexFormat?: SkillsIndexFormat;
  /** Tool names that read files (summary mode's on-demand policy). @default DEFAULT_FILE_READING_TOOLS */
  readonly fileReadingTools?: readonly string[];
};

/** The keys of {@link SkillPresetOptions}, for `checkOptions`. @internal */
export const SKILL_PRESET_OPTION_KEYS = {
  ...REACT_PRESET_OPTION_KEYS,
  skillSet: true,
  mode: true,
  includeReactProtocol: true,
  configSkillsDir: true,
  cwd: true,
  environment: true,
  indexFormat: true,
  fileReadingTools: true,
} as const satisfies OptionKeys<SkillPresetOptions>;

/** Where {@link resolveSkillSet} found the skills. */
export type SkillSetOrigin =
  | 'skillSet'
  | 'runtimePrompt.skillsCatalog'
  | 'runtimePrompt.skillsDir'
  | 'config'
  | 'cwd';

/**
 * The runtime resolution: an explicit `skillSet` → `runtimePrompt.skillsCatalog` (any
 * object with a `list` method, e.g. a `SkillsCatalog`) → `runtimePrompt.skillsDir` →
 * `configSkillsDir` → `./skills` under `cwd`. The build input's `runtimePrompt` wins over the
 * preset's. Discovered folders list every skill, unavailable ones flagged.
 */
export function resolveSkillSet(
  input: BuildInput,
  options: SkillPresetOptions & { readonly catalogs?: Map<string, SkillsCatalog> },
): { readonly origin: SkillSetOrigin; readonly skills: readonly Skill[] } {
  if (options.skillSet !== undefined) return { origin: 'skillSet', skills: options.skillSet };
  const runtime = { ...options.runtimePrompt, ...input.runtimePrompt };
  const provided = runtime.skillsCatalog;
  if (isCatalog(provided))
    return { origin: 'runtimePrompt.skillsCatalog', skills: provided.list({ includeUnavailable: true }) };
  const [origin, dir]: readonly [SkillSetOrigin, string] =
    runtime.skillsDir !== undefined && runtime.skillsDir !== ''
      ? ['runtimePrompt.skillsDir', runtime.skillsDir]
      : options.configSkillsDir !== undefined
        ? ['config', options.configSkillsDir]
        : ['cwd', path.join(options.cwd ?? process.cwd(), 'skills')];
  const key = path.resolve(dir);
  const cached = options.catalogs?.get(key);
  const catalog =
    cached ??
    new SkillsCatalog({
      dirs: [key],
      builtinDir: null,
      ...(options.environment === undefined ? {} : { environment: options.environment }),
    });
  options.catalogs?.set(key, catalog);
  return { origin, skills: catalog.list({ includeUnavailable: true }) };
}

/**
 * The skill preset: persona → ReAct protocol (optional) → bootstrap files (optional) →
 * skill set → history; SanitizeToolCalls (on by default) → MaxMessages → TokenBudget → budget check. Run-time switches: `includeSkillsSummary: false`
 * hides the index, `includeActiveSkills: true` inlines the always-on skills.
 */
export function skillPresetOptions(options: SkillPresetOptions = {}): ContextPipelineOptions {
  const catalogs = new Map<string, SkillsCatalog>();
  const shared = {
    ...(options.indexFormat === undefined ? {} : { indexFormat: options.indexFormat }),
    ...(options.fileReadingTools === undefined ? {} : { fileReadingTools: options.fileReadingTools }),
    prompts: presetPrompts(options),
    skills: (input: BuildInput) => resolveSkillSet(input, { ...options, catalogs }).skills,
  } satisfies Partial<SkillSetPromptProviderOptions>;
  const main = new SkillSetPromptProvider({ ...shared, mode: options.mode ?? 'summary' });
  const active = new SkillSetPromptProvider({ ...shared, id: 'active-skills', mode: 'alwaysOnly' });
  const skills = {
    id: 'skills',
    getMessages: (input: BuildInput, context: Parameters<SkillSetPromptProvider['getMessages']>[1]) => {
      const runtime = { ...options.runtimePrompt, ...input.runtimePrompt };
      const summary = runtime.includeSkillsSummary === false ? [] : main.getMessages(input, context);
      const always =
        runtime.includeActiveSkills === true && main.mode !== 'full'
          ? active.getMessages(input, context)
          : [];
      return [...summary, ...always];
    },
  };
  const react =
    options.includeReactProtocol === false ? [] : reactProviders({ ...options, includeToolsDesc: false });
  return {
    ...pipelineOptions(options),
    providers: [
      personaProvider(options),
      ...react,
      ...bootstrapProviders(options),
      skills,
      ...historyProviders(options),
    ],
    filters: budgetFilters(options),
  };
}

function isCatalog(value: unknown): value is Pick<SkillsCatalog, 'list'> {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'list') === 'function';
}
