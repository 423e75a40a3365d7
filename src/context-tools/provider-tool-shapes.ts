import type { JsonObject } from '../core/json.js';
import type { ToolDefinition } from '../core/tool-definition.js';

/** A tool as Anthropic's `tools` takes it (`input_schema` an object schema), as the adapters write it. */
export function anthropicToolOf(tool: ToolDefinition): JsonObject {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: { properties: {}, ...(tool.parameters as JsonObject | undefined), type: 'object' },
  };
}

/** A tool as OpenAI Responses' `tools` takes it: a function tool. */
export function openAIResponsesToolOf(tool: ToolDefinition): JsonObject {
  return {
    type: 'function',
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: { properties: {}, ...(tool.parameters as JsonObject | undefined), type: 'object' },
    strict: false,
  };
}
