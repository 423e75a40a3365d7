import type { JSONSchema7, Tool } from 'ai';
import { contextToolOutput } from '../context-tools/context-tool-result.js';
import type { ContextTools } from '../context-tools/create-context-tools.js';
import { loadOptional } from '../sessions/load-optional.js';

/** What a context tool's `execute` gives the AI SDK: the text and whether it is an error. */
export type ContextToolSetOutput = { readonly output: string; readonly isError: boolean };

/** An AI SDK `ToolSet` of the context tools. */
export type ContextToolSet = Record<string, Tool>;

/**
 * The context tools as an AI SDK `ToolSet` (AI SDK 6 and 7): each with its description, its JSON
 * Schema (`jsonSchema()`), an `execute` that runs `contextTools.execute` (the AI SDK's tool call id
 * and abort signal passed on), and a `toModelOutput` that sends a refusal as an `error-text` result.
 * Spread it into your `tools`. The `ai` package is imported on first use.
 * @throws ContextError `DEPENDENCY_MISSING` when `ai` cannot be loaded.
 * @example
 * const tools = { ...myTools, ...(await contextToolSet(createContextTools({ workspace, store, sessionKey }))) };
 */
export async function contextToolSet(contextTools: ContextTools): Promise<ContextToolSet> {
  const { tool, jsonSchema } = await loadOptional('ai', () => import('ai'), 'contextToolSet');
  const entries = contextTools.definitions.map((definition) => {
    const schema = (definition.parameters ?? { type: 'object', properties: {} }) as JSONSchema7;
    const made = tool({
      ...(definition.description === undefined ? {} : { description: definition.description }),
      // The definitions are JSON Schema objects written for this purpose (see CONTEXT_TOOL_DEFINITIONS).
      inputSchema: jsonSchema<unknown>(schema),
      execute: async (input: unknown, { toolCallId, abortSignal }): Promise<ContextToolSetOutput> =>
        contextToolOutput(
          await contextTools.execute(
            { id: toolCallId, name: definition.name, arguments: JSON.stringify(input ?? {}) },
            abortSignal === undefined ? {} : { signal: abortSignal },
          ),
        ),
      toModelOutput: ({ output }) =>
        output.isError
          ? { type: 'error-text', value: output.output }
          : { type: 'text', value: output.output },
    });
    return [definition.name, made] as const;
  });
  return Object.fromEntries(entries);
}
