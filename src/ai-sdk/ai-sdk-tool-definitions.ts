import type { ToolDefinition } from '../core/tool-definition.js';
import { loadOptional } from '../sessions/load-optional.js';
import { fieldOf } from './ai-sdk-message-like.js';

/**
 * The AI SDK `tools` object as passed to `generateText`, `streamText` or `ToolLoopAgent` (a
 * `ToolSet`): ctxloom reads each tool's description and input schema.
 */
export type AiSdkToolSet = { readonly [name: string]: object };

/**
 * The tool definitions the model receives for an AI SDK `tools` object: name, description and the
 * input schema as JSON Schema (zod, Standard Schema and `jsonSchema()` schemas alike, through the AI
 * SDK's own `asSchema`, imported on first use). Counted against the budget.
 * @throws ContextError `DEPENDENCY_MISSING` when the `ai` package cannot be loaded.
 */
export async function aiSdkToolDefinitions(tools: AiSdkToolSet): Promise<readonly ToolDefinition[]> {
  const entries = Object.entries(tools);
  if (entries.length === 0) return [];
  const { asSchema } = await loadOptional('ai', () => import('ai'), 'Counting AI SDK tools');
  return Promise.all(
    entries.map(async ([name, tool]): Promise<ToolDefinition> => {
      const description = fieldOf(tool, 'description');
      const inputSchema = fieldOf(tool, 'inputSchema');
      // asSchema takes every schema form the AI SDK accepts for `inputSchema`.
      const schema =
        inputSchema === undefined
          ? undefined
          : await asSchema(inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;
      return {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        ...(typeof schema === 'object' && schema !== null ? { parameters: { ...schema } } : {}),
      };
    }),
  );
}

/**
 * The tool definitions of a provider-level call (`params.tools` of a middleware): function tools with
 * their JSON Schema, provider tools by name.
 */
export function promptToolDefinitions(tools: readonly unknown[] | undefined): readonly ToolDefinition[] {
  return (tools ?? []).flatMap((tool): ToolDefinition[] => {
    if (typeof tool !== 'object' || tool === null) return [];
    const name = fieldOf(tool, 'name');
    const description = fieldOf(tool, 'description');
    const schema = fieldOf(tool, 'inputSchema');
    if (typeof name !== 'string') return [];
    return [
      {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        ...(typeof schema === 'object' && schema !== null ? { parameters: { ...schema } } : {}),
      },
    ];
  });
}
