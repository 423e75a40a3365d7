import type { ToolCall } from '../core/message.js';
import { contextToolOutput } from './context-tool-result.js';
import type { ContextToolExecuteOptions, ContextTools } from './create-context-tools.js';

/** An Anthropic custom tool, or the native memory tool. */
export type AnthropicContextTool =
  | {
      readonly name: string;
      readonly description?: string;
      readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
    }
  | { readonly type: 'memory_20250818'; readonly name: 'memory' };

/** An Anthropic `tool_use` block. */
export type AnthropicToolUseLike = {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
};

/** The `tool_result` block answering one `tool_use`. */
export type AnthropicToolResultBlock = {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: true;
};

/** Options of {@link anthropicContextTools}. */
export type AnthropicContextToolsOptions = {
  /**
   * Send the memory tool as Anthropic's native `memory_20250818` tool (Claude models trained on it;
   * the client still runs the commands). `false` sends it as a custom tool with its JSON Schema.
   * @default true
   */
  readonly isNativeMemory?: boolean;
};

/** The context tools in the Anthropic SDK's shapes. */
export type AnthropicContextTools = {
  /** For `tools` of `messages.create`. */
  readonly tools: readonly AnthropicContextTool[];
  handles(block: AnthropicToolUseLike): boolean;
  /** Runs a `tool_use` block and returns its `tool_result` block. */
  execute(
    block: AnthropicToolUseLike,
    options?: ContextToolExecuteOptions,
  ): Promise<AnthropicToolResultBlock>;
};

/**
 * The context tools for the Anthropic SDK: custom tools with their JSON Schemas (the memory tool as
 * the native `memory_20250818` type by default) and a dispatcher from `tool_use` to `tool_result`.
 */
export function anthropicContextTools(
  contextTools: ContextTools,
  options: AnthropicContextToolsOptions = {},
): AnthropicContextTools {
  const isNativeMemory = options.isNativeMemory ?? true;
  return {
    tools: contextTools.definitions.map(
      (definition): AnthropicContextTool =>
        definition.name === 'memory' && isNativeMemory
          ? { type: 'memory_20250818', name: 'memory' }
          : {
              name: definition.name,
              ...(definition.description === undefined ? {} : { description: definition.description }),
              input_schema: { type: 'object', properties: {}, ...definition.parameters },
            },
    ),
    handles: (block) => contextTools.handles(block.name),
    execute: async (block, executeOptions) => {
      const call: ToolCall = { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) };
      const { output, isError } = contextToolOutput(await contextTools.execute(call, executeOptions));
      return {
        type: 'tool_result',
        tool_use_id: block.id,
        content: output,
        ...(isError ? { is_error: true as const } : {}),
      };
    },
  };
}
