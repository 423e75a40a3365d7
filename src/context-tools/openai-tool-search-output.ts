import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import { LOADED_TOOLS_MESSAGE_KEY, withLoadedTools } from './loaded-tools.js';
import { openAIResponsesToolOf } from './provider-tool-shapes.js';
import type { ToolSearchMatch } from './search-tools.js';
import type { ToolRegistry } from './tool-registry.js';

/** A `tool_search_call` item of OpenAI Responses, as the model returned it (the fields read). */
export type OpenAIToolSearchCallItem = {
  readonly type: 'tool_search_call';
  readonly call_id?: string | null;
  readonly arguments: unknown;
};

/** Options of {@link openAIToolSearchOutput}. */
export type OpenAIToolSearchOutputOptions = {
  readonly registry: ToolRegistry;
  /** The deferred tools loaded so far (the session's: `readLoadedTools`). */
  readonly loaded: readonly string[];
};

/** The known keys of {@link OpenAIToolSearchOutputOptions}. */
export const OPENAI_TOOL_SEARCH_OUTPUT_OPTION_KEYS = {
  registry: true,
  loaded: true,
} as const satisfies OptionKeys<OpenAIToolSearchOutputOptions>;

/** What {@link openAIToolSearchOutput} returns. */
export type OpenAIToolSearchOutcome = {
  /** The `tool_search_output` item to append to `input` after the call. */
  readonly item: JsonObject;
  /**
   * The item as a ctxloom message (an assistant message holding it as an `openai-responses` provider
   * part, `metadata.loadedTools` naming what it loaded), for histories kept as ctxloom messages.
   */
  readonly message: Message;
  readonly matches: readonly ToolSearchMatch[];
  readonly added: readonly string[];
  readonly loaded: readonly string[];
  /** Why the search could not run (bad arguments, a bad pattern); the item then lists no tool. */
  readonly error?: string;
};

/**
 * Answers a client-executed OpenAI `tool_search_call` (the `tool_search` tool of
 * `openAIResponsesDeferredTools`): runs the registry's search on `arguments.query` (words or
 * `/pattern/flags`, at most `arguments.limit`) and returns the `tool_search_output` item listing the
 * matches as function tools. Pure: the caller stores `loaded`.
 */
export function openAIToolSearchOutput(
  call: OpenAIToolSearchCallItem,
  options: OpenAIToolSearchOutputOptions,
): OpenAIToolSearchOutcome {
  checkOptions(options, {
    where: 'openAIToolSearchOutput options',
    known: OPENAI_TOOL_SEARCH_OUTPUT_OPTION_KEYS,
  });
  const { registry } = options;
  const args = typeof call.arguments === 'string' ? parse(call.arguments) : call.arguments;
  const query = isObject(args) ? args['query'] : undefined;
  const limit = isObject(args) ? args['limit'] : undefined;
  const base = {
    type: 'tool_search_output',
    call_id: call.call_id ?? null,
    execution: 'client',
    status: 'completed',
  };
  if (
    typeof query !== 'string' ||
    query.trim() === '' ||
    (limit !== undefined && typeof limit !== 'number')
  ) {
    const error = `tool_search takes {"query": string, "limit"?: integer}; got ${JSON.stringify(call.arguments)}.`;
    const item = { ...base, tools: [] };
    return { item, message: outputMessage(item, []), matches: [], added: [], loaded: options.loaded, error };
  }
  const result = registry.search(query, typeof limit === 'number' ? { limit } : {});
  if (result.type === 'invalid-query') {
    const item = { ...base, tools: [] };
    return {
      item,
      message: outputMessage(item, []),
      matches: [],
      added: [],
      loaded: options.loaded,
      error: result.message,
    };
  }
  const names = result.matches.map((match) => match.name);
  const loaded = withLoadedTools(options.loaded, names);
  const item = openAIToolSearchOutputItem({ registry, callId: call.call_id ?? null, names });
  return {
    item,
    message: outputMessage(item, names),
    matches: result.matches,
    added: loaded.slice(options.loaded.length),
    loaded,
  };
}

/**
 * The `tool_search_output` item listing `names` as function tools.
 * @internal
 */
export function openAIToolSearchOutputItem(run: {
  readonly registry: ToolRegistry;
  readonly callId: string | null;
  readonly names: readonly string[];
}): JsonObject {
  const { registry } = run;
  return {
    type: 'tool_search_output',
    call_id: run.callId,
    execution: 'client',
    status: 'completed',
    tools: run.names.flatMap((name) => {
      const tool = registry.deferredTool(name);
      return tool === undefined ? [] : [openAIResponsesToolOf(tool)];
    }),
  };
}

function outputMessage(item: JsonObject, names: readonly string[]): Message {
  return {
    id: `${String(item['call_id'] ?? 'tool-search')}-output`,
    role: 'assistant',
    content: [{ type: 'provider', format: 'openai-responses', kind: 'tool_search_output', value: item }],
    metadata: { [LOADED_TOOLS_MESSAGE_KEY]: names },
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
