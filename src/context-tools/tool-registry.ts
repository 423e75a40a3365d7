import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { createToolSearcher, type ToolSearchMode, type ToolSearchResult } from './search-tools.js';

/** Options of {@link createToolRegistry}. */
export type ToolRegistryOptions = {
  /** Tools sent in full with every request. @default [] */
  readonly tools?: readonly ToolDefinition[];
  /** Tools offered through tool search and loaded when the model asks (MCP servers' tools, say). */
  readonly deferred: readonly ToolDefinition[];
  /** The most tools one search loads (the model may ask for fewer). @default 5 */
  readonly maxResults?: number;
  /** The name of the search tool the model calls. @default 'tool_search' */
  readonly searchToolName?: string;
  /** The name of the dispatcher tool of the provider-neutral mechanism. @default 'call_tool' */
  readonly callToolName?: string;
};

/** The known keys of {@link ToolRegistryOptions}. */
export const TOOL_REGISTRY_OPTION_KEYS = {
  tools: true,
  deferred: true,
  maxResults: true,
  searchToolName: true,
  callToolName: true,
} as const satisfies OptionKeys<ToolRegistryOptions>;

/**
 * The tools of an agent, some of them deferred: sent in full only once the model loaded them through
 * tool search, so the `tools` of every request stay byte-identical whatever was loaded. Plain data
 * plus a search; the set of loaded tools is kept by the caller (in the session: `saveLoadedTools`).
 */
export type ToolRegistry = {
  /** Tools sent in full with every request. */
  readonly tools: readonly ToolDefinition[];
  /** Tools offered through tool search. */
  readonly deferred: readonly ToolDefinition[];
  readonly maxResults: number;
  /** The search tool: `{ query, limit? }`; a query `/pattern/flags` is a regular expression. */
  readonly searchTool: ToolDefinition;
  /** The neutral mechanism's dispatcher: `{ name, arguments }` calls a loaded deferred tool. */
  readonly callTool: ToolDefinition;
  /** The deferred tool of that name, if any. */
  deferredTool(name: string): ToolDefinition | undefined;
  /** Searches the deferred tools (at most `limit`, default and cap {@link ToolRegistry.maxResults}). */
  search(
    query: string,
    options?: { readonly limit?: number; readonly mode?: ToolSearchMode },
  ): ToolSearchResult;
};

/**
 * Builds a {@link ToolRegistry}.
 * @throws ContextError `INVALID_OPTIONS` for an unknown option, two tools of one name (the search and
 * dispatcher tools included), or a `maxResults` that is not a positive integer.
 * @example
 * const registry = createToolRegistry({ tools: [readFile], deferred: mcpTools });
 * const tools = neutralDeferredTools(registry); // the same bytes on every request
 */
export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  checkOptions(options, { where: 'createToolRegistry options', known: TOOL_REGISTRY_OPTION_KEYS });
  const tools = options.tools ?? [];
  const deferred = options.deferred;
  const maxResults = options.maxResults ?? 5;
  if (!Number.isInteger(maxResults) || maxResults < 1) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `createToolRegistry maxResults must be a positive integer, got ${maxResults}; leave it out for 5.`,
    });
  }
  const searchTool = searchToolDefinition(options.searchToolName ?? 'tool_search', maxResults);
  const callTool = callToolDefinition(options.callToolName ?? 'call_tool', searchTool.name);
  const seen = new Set<string>();
  for (const tool of [searchTool, callTool, ...tools, ...deferred]) {
    if (seen.has(tool.name)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `createToolRegistry got two tools named "${tool.name}" (the search tool is "${searchTool.name}", the dispatcher "${callTool.name}"); give each tool its own name, or rename the search tools with searchToolName / callToolName.`,
        details: { name: tool.name },
      });
    }
    seen.add(tool.name);
  }
  const byName = new Map(deferred.map((tool) => [tool.name, tool]));
  const searcher = createToolSearcher(deferred);
  return {
    tools,
    deferred,
    maxResults,
    searchTool,
    callTool,
    deferredTool: (name) => byName.get(name),
    search(query, searchOptions = {}) {
      const limit = Math.min(maxResults, Math.max(1, Math.floor(searchOptions.limit ?? maxResults)));
      return searcher.search(query, {
        limit,
        ...(searchOptions.mode === undefined ? {} : { mode: searchOptions.mode }),
      });
    },
  };
}

function searchToolDefinition(name: string, maxResults: number): ToolDefinition {
  return {
    name,
    description:
      'Search the tools that are available but not loaded yet, by name, description and parameter names, and load the best matches so you can call them. Query with words (ranked by BM25) or with a regular expression written /pattern/flags.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words describing the tool you need, or /pattern/flags.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: maxResults,
          description: `How many tools to load at most (default ${maxResults}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
  };
}

function callToolDefinition(name: string, searchName: string): ToolDefinition {
  return {
    name,
    description: `Call a tool loaded by ${searchName}, by its name, with arguments that follow the schema ${searchName} returned.`,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: `The name of a tool ${searchName} loaded.` },
        arguments: { type: 'object', description: "The tool's arguments." },
      },
      required: ['name', 'arguments'],
      additionalProperties: false,
    },
  };
}
