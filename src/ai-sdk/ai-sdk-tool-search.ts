import { createToolSearcher } from '../context-tools/search-tools.js';
import type { ToolRegistry } from '../context-tools/tool-registry.js';

/** The `search` callback of AI SDK 7's `toolSearch({ search })`: the eligible deferred tools, ranked names back. */
export type AiSdkToolSearchFunction = (options: {
  readonly query: string;
  readonly tools: readonly { readonly name: string; readonly description?: string }[];
}) => string[];

/**
 * ctxloom's tool search (BM25 over names, descriptions and parameter names, or `/regex/flags`) as the
 * `search` of AI SDK 7's `toolSearch()`, for agents that use the SDK's own deferred loading
 * (`deferLoading: true` tools). Parameter names come from the registry's definition of each tool.
 * Note that the AI SDK adds the tools it discovers to the tool list of the next step, which changes
 * the tools prefix; `deferredAiSdkTools` keeps the list fixed.
 * @example
 * const tools = { tool_search: toolSearch({ search: aiSdkToolSearch(registry) }), ...deferredToolSet };
 */
export function aiSdkToolSearch(registry: ToolRegistry): AiSdkToolSearchFunction {
  return ({ query, tools }) => {
    const searcher = createToolSearcher(
      tools.map((tool) => ({
        ...(registry.deferredTool(tool.name) ?? {}),
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
      })),
    );
    const result = searcher.search(query, { limit: tools.length });
    return result.type === 'matches' ? result.matches.map((match) => match.name) : [];
  };
}
