import type { ToolDefinition } from '../core/tool-definition.js';

/** A message in OpenAI chat-completions shape. */
export type OpenAIChatMessage = { readonly [key: string]: unknown };

/** Converts tool definitions to OpenAI `tools` entries. */
export function toOpenAITools(tools: readonly ToolDefinition[]): readonly OpenAIChatMessage[] {
  return tools.map((definition) => ({
    type: 'function',
    function: {
      name: definition.name,
      ...(definition.description === undefined ? {} : { description: definition.description }),
      parameters: definition.parameters ?? { type: 'object', properties: {} },
    },
  }));
}
