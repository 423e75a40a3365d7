import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** The placeholder the tools template must contain. */
export const TOOLS_DESC_PLACEHOLDER = '{tools_desc}';

/** Options for {@link ToolsDescProvider}. */
export type ToolsDescProviderOptions = {
  /** The provider id. @default 'tools-desc' */
  readonly id?: string;
  /** The template; every `{tools_desc}` is replaced by the description. @default 'Available tools:\n{tools_desc}' */
  readonly template?: string;
  /** The description used when the input has no `toolsDescription`. @default rendered from `input.tools` */
  readonly toolsDescription?: string;
};

/** Defaults of {@link ToolsDescProviderOptions}. */
export const DEFAULT_TOOLS_DESC_PROVIDER = Object.freeze({
  id: 'tools-desc',
  template: `Available tools:\n${TOOLS_DESC_PLACEHOLDER}`,
});

/**
 * Embeds the tool description block in one `system` message. The description is
 * `input.toolsDescription` when given, else the `toolsDescription` option; otherwise it is rendered from `input.tools` as one
 * `- name: description` line per tool. Contributes nothing when there is no description.
 */
export class ToolsDescProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly template: string;
  readonly #toolsDescription: string | undefined;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: ToolsDescProviderOptions = {}) {
    const template = options.template ?? DEFAULT_TOOLS_DESC_PROVIDER.template;
    if (!template.includes(TOOLS_DESC_PLACEHOLDER)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `ToolsDescProvider template ${JSON.stringify(template)} has no ${TOOLS_DESC_PLACEHOLDER} placeholder; add it where the tool list goes.`,
      });
    }
    this.id = options.id ?? DEFAULT_TOOLS_DESC_PROVIDER.id;
    this.template = template;
    this.#toolsDescription = options.toolsDescription;
  }

  getMessages(input: BuildInput, context: BuildContext): readonly Message[] {
    const description = input.toolsDescription ?? this.#toolsDescription ?? renderToolList(input.tools ?? []);
    if (description.trim() === '') return [];
    const content = this.template.replaceAll(TOOLS_DESC_PLACEHOLDER, () => description);
    return [this.#said.message({ content }, context.generateId)];
  }
}

/** Renders tool definitions as `- name: description` lines (the description is left out when absent). */
export function renderToolList(tools: readonly ToolDefinition[]): string {
  return tools
    .map((definition) => {
      const description = definition.description?.trim() ?? '';
      return description === '' ? `- ${definition.name}` : `- ${definition.name}: ${description}`;
    })
    .join('\n');
}
