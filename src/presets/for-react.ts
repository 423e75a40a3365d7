import type { OptionKeys } from '../core/check-options.js';
import type { ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import type { MessageProvider } from '../pipeline/contracts.js';
import { StaticPromptProvider } from '../providers/static-prompt-provider.js';
import { ToolsDescProvider } from '../providers/tools-desc-provider.js';
import {
  bootstrapProviders,
  budgetFilters,
  CHAT_PRESET_OPTION_KEYS,
  type ChatPresetOptions,
  historyProviders,
  personaProvider,
  pipelineOptions,
  presetPrompts,
} from './for-chat.js';

/** Options for `ContextBuilder.forReact`: the chat options plus the tools block. */
export type ReactPresetOptions = ChatPresetOptions & {
  /**
   * A pre-formatted tool description; `input.toolsDescription` wins, and without either the block
   * is rendered from `input.tools`. @default none
   */
  readonly toolsDesc?: string;
  /** Add the tools-description block at all. @default true */
  readonly includeToolsDesc?: boolean;
};

/** The keys of {@link ReactPresetOptions}, for `checkOptions`. @internal */
export const REACT_PRESET_OPTION_KEYS = {
  ...CHAT_PRESET_OPTION_KEYS,
  toolsDesc: true,
  includeToolsDesc: true,
} as const satisfies OptionKeys<ReactPresetOptions>;

/** The ReAct protocol and tools-description providers. @internal */
export function reactProviders(options: ReactPresetOptions): readonly MessageProvider[] {
  const prompts = presetPrompts(options);
  const protocol = new StaticPromptProvider({ id: 'react-protocol', text: prompts.reactProtocolPrompt });
  if (options.includeToolsDesc === false) return [protocol];
  const tools = new ToolsDescProvider({
    template: prompts.toolsTemplate,
    ...(options.toolsDesc === undefined ? {} : { toolsDescription: options.toolsDesc }),
  });
  return [protocol, tools];
}

/**
 * The ReAct preset: Static(persona) → Static(ReAct protocol) → ToolsDesc (when there is a
 * description) → BootstrapFiles (optional) → StateHistory, then SanitizeToolCalls (on by default) → MaxMessages → TokenBudget → budget check. Skill
 * fields are ignored.
 */
export function reactPresetOptions(options: ReactPresetOptions = {}): ContextPipelineOptions {
  return {
    ...pipelineOptions(options),
    providers: [
      personaProvider(options),
      ...reactProviders(options),
      ...bootstrapProviders(options),
      ...historyProviders(options),
    ],
    filters: budgetFilters(options),
  };
}
