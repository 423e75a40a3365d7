import type { ToolCall } from '../core/message.js';
import { contextToolOutput } from './context-tool-result.js';
import type { ContextToolExecuteOptions, ContextTools } from './create-context-tools.js';

/** An OpenAI chat-completions function tool. */
export type OpenAIFunctionTool = {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters: Readonly<Record<string, unknown>>;
  };
};

/** An OpenAI chat-completions tool call, as the assistant message carries it. */
export type OpenAIToolCallLike = {
  readonly id: string;
  readonly type?: string;
  readonly function: { readonly name: string; readonly arguments: string };
};

/** The tool message answering one call. */
export type OpenAIToolMessage = {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
};

/** The context tools in the OpenAI SDK's shapes. */
export type OpenAIContextTools = {
  /** For `tools` of `chat.completions.create`. */
  readonly tools: readonly OpenAIFunctionTool[];
  /** True when the call is a context tool's. */
  handles(call: OpenAIToolCallLike): boolean;
  /** Runs the call and returns the tool message to append (an error result is prefixed `Error: `). */
  execute(call: OpenAIToolCallLike, options?: ContextToolExecuteOptions): Promise<OpenAIToolMessage>;
};

/**
 * The context tools for the OpenAI SDK (chat completions): function tools with their JSON Schemas,
 * and a dispatcher that answers a `tool_calls` entry with its `tool` message.
 */
export function openAIContextTools(contextTools: ContextTools): OpenAIContextTools {
  return {
    tools: contextTools.definitions.map((definition) => ({
      type: 'function',
      function: {
        name: definition.name,
        ...(definition.description === undefined ? {} : { description: definition.description }),
        parameters: definition.parameters ?? { type: 'object', properties: {} },
      },
    })),
    handles: (call) => contextTools.handles(call.function.name),
    execute: async (call, options) => {
      const toolCall: ToolCall = {
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      };
      const { output, isError } = contextToolOutput(await contextTools.execute(toolCall, options));
      return { role: 'tool', tool_call_id: call.id, content: isError ? `Error: ${output}` : output };
    },
  };
}
