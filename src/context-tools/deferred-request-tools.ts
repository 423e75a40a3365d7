import type { JsonObject } from '../core/json.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { anthropicToolOf, openAIResponsesToolOf } from './provider-tool-shapes.js';
import type { ToolRegistry } from './tool-registry.js';

/**
 * The `tools` of every request under the `neutral` mechanism, for any adapter (OpenAI chat,
 * Anthropic, the AI SDK, a loop of your own): the registry's tools, the search tool and the
 * `call_tool` dispatcher. The same list whatever is loaded.
 */
export function neutralDeferredTools(registry: ToolRegistry): readonly ToolDefinition[] {
  return [...registry.tools, registry.searchTool, registry.callTool];
}

/** Options of {@link anthropicDeferredTools}. */
export type AnthropicDeferredToolsOptions = {
  /** `anthropic-tool-search` (`defer_loading`, the default) or `anthropic-inline` (`tool_addition`). */
  readonly mechanism?: 'anthropic-tool-search' | 'anthropic-inline';
  /**
   * Also offer Anthropic's server-side search (`tool_search_tool_regex_20251119` or
   * `tool_search_tool_bm25_20251119`) beside ctxloom's client search tool. Only with
   * `anthropic-tool-search`.
   */
  readonly serverSearch?: 'regex' | 'bm25';
};

/**
 * The Anthropic `tools` of every request: the registry's tools and ctxloom's search tool, plus, for
 * `anthropic-tool-search`, every deferred tool with `defer_loading: true` (the API keeps them out of
 * the prompt until a `tool_reference` loads them) and the server search tool when asked. The same
 * bytes whatever is loaded.
 */
export function anthropicDeferredTools(
  registry: ToolRegistry,
  options: AnthropicDeferredToolsOptions = {},
): readonly JsonObject[] {
  const eager = [...registry.tools, registry.searchTool].map(anthropicToolOf);
  if (options.mechanism === 'anthropic-inline') return eager;
  const deferred = registry.deferred.map((tool) => ({ ...anthropicToolOf(tool), defer_loading: true }));
  const server =
    options.serverSearch === undefined
      ? []
      : [
          {
            type: `tool_search_tool_${options.serverSearch}_20251119`,
            name: `tool_search_tool_${options.serverSearch}`,
          },
        ];
  return [...eager, ...server, ...deferred];
}

/**
 * The OpenAI Responses `tools` of every request: the registry's tools as function tools and a
 * client-executed `tool_search` tool (ctxloom runs the search and answers with a
 * `tool_search_output` item: `openAIToolSearchOutput`). The same bytes whatever is loaded.
 */
export function openAIResponsesDeferredTools(registry: ToolRegistry): readonly JsonObject[] {
  return [
    ...registry.tools.map(openAIResponsesToolOf),
    {
      type: 'tool_search',
      execution: 'client',
      description: registry.searchTool.description ?? '',
      parameters: registry.searchTool.parameters as JsonObject,
    },
  ];
}
