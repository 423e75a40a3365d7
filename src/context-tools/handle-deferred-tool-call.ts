import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import type { DeferredToolMechanism } from './deferred-tool-mechanism.js';
import { LOADED_TOOLS_MESSAGE_KEY, withLoadedTools } from './loaded-tools.js';
import { anthropicToolOf } from './provider-tool-shapes.js';
import type { ToolSearchMatch } from './search-tools.js';
import type { ToolRegistry } from './tool-registry.js';

/** What to do with a tool call the model made, as {@link handleDeferredToolCall} sees it. */
export type DeferredToolCallOutcome =
  /** A search: append `messages` (its result) and keep `loaded` (store it: `saveLoadedTools`). */
  | {
      readonly type: 'search';
      readonly matches: readonly ToolSearchMatch[];
      /** The tools this search loaded that were not loaded before. */
      readonly added: readonly string[];
      readonly loaded: readonly string[];
      readonly messages: readonly Message[];
    }
  /** A `call_tool` call (neutral mechanism): run `call` (the loaded tool's, with the dispatcher's id). */
  | { readonly type: 'call'; readonly call: ToolCall }
  /** A call ctxloom refused (bad arguments, a tool not loaded): append `messages`, an error result. */
  | { readonly type: 'invalid'; readonly reason: string; readonly messages: readonly Message[] }
  /** Not a call of the registry's tools, nor of a deferred tool that is not loaded: run it yourself. */
  | { readonly type: 'other' };

/** Options of {@link handleDeferredToolCall}. */
export type HandleDeferredToolCallOptions = {
  readonly registry: ToolRegistry;
  readonly mechanism: DeferredToolMechanism;
  /** The deferred tools loaded so far (the session's: `readLoadedTools`). */
  readonly loaded: readonly string[];
};

/** The known keys of {@link HandleDeferredToolCallOptions}. */
export const HANDLE_DEFERRED_TOOL_CALL_OPTION_KEYS = {
  registry: true,
  mechanism: true,
  loaded: true,
} as const satisfies OptionKeys<HandleDeferredToolCallOptions>;

/**
 * Handles one tool call of the model for a {@link ToolRegistry}: runs a search (loading its matches,
 * the result written for the mechanism: the definitions as JSON for `neutral`, `tool_reference`
 * blocks for `anthropic-tool-search`, a `tool_addition` message for `anthropic-inline`), unwraps a
 * `call_tool` call, refuses a deferred tool called before it was loaded, and leaves any other call to
 * the caller. Pure: the caller stores the new `loaded` set.
 */
export function handleDeferredToolCall(
  call: ToolCall,
  options: HandleDeferredToolCallOptions,
): DeferredToolCallOutcome {
  checkOptions(options, {
    where: 'handleDeferredToolCall options',
    known: HANDLE_DEFERRED_TOOL_CALL_OPTION_KEYS,
  });
  const { registry } = options;
  if (call.name === registry.searchTool.name) return search(call, options);
  if (call.name === registry.callTool.name && options.mechanism === 'neutral') {
    const input = parseObject(call.arguments);
    const name = input?.['name'];
    const args = input?.['arguments'];
    if (typeof name !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args)) {
      return invalid(
        call,
        `${call.name} takes {"name": string, "arguments": object}; got ${truncate(call.arguments)}.`,
      );
    }
    if (registry.tools.some((tool) => tool.name === name)) {
      return { type: 'call', call: { id: call.id, name, arguments: JSON.stringify(args) } };
    }
    const refusal = notLoaded(name, options);
    if (refusal !== undefined) return invalid(call, refusal);
    return { type: 'call', call: { id: call.id, name, arguments: JSON.stringify(args) } };
  }
  if (registry.deferredTool(call.name) !== undefined && !options.loaded.includes(call.name)) {
    return invalid(call, notLoaded(call.name, options) ?? '');
  }
  return { type: 'other' };
}

function notLoaded(
  name: string,
  { registry, loaded }: { readonly registry: ToolRegistry; readonly loaded: readonly string[] },
): string | undefined {
  if (registry.deferredTool(name) === undefined) {
    return `There is no tool named "${name}". Search for one with ${registry.searchTool.name}.`;
  }
  if (!loaded.includes(name)) {
    return `The tool "${name}" is not loaded. Load it first with ${registry.searchTool.name} (for example the query "/^${escapeRegex(name)}$/").`;
  }
  return undefined;
}

function search(call: ToolCall, options: HandleDeferredToolCallOptions): DeferredToolCallOutcome {
  const { registry } = options;
  const input = parseObject(call.arguments);
  const query = input?.['query'];
  const limit = input?.['limit'];
  if (
    typeof query !== 'string' ||
    query.trim() === '' ||
    (limit !== undefined && typeof limit !== 'number')
  ) {
    return invalid(
      call,
      `${call.name} takes {"query": string, "limit"?: integer}; got ${truncate(call.arguments)}.`,
    );
  }
  const result = registry.search(query, typeof limit === 'number' ? { limit } : {});
  if (result.type === 'invalid-query') return invalid(call, result.message);
  const names = result.matches.map((match) => match.name);
  const loaded = withLoadedTools(options.loaded, names);
  const added = loaded.slice(options.loaded.length);
  return {
    type: 'search',
    matches: result.matches,
    added,
    loaded,
    messages: searchResultMessages({ registry, call, names, mechanism: options.mechanism }),
  };
}

/**
 * The messages answering a search call that loaded `names` (also how loaded tools are carried past a
 * compaction: `carryLoadedTools`).
 * @internal
 */
export function searchResultMessages(run: {
  readonly registry: ToolRegistry;
  readonly call: ToolCall;
  readonly names: readonly string[];
  readonly mechanism: DeferredToolMechanism;
}): readonly Message[] {
  const { registry, call, names, mechanism } = run;
  const metadata = { [LOADED_TOOLS_MESSAGE_KEY]: names };
  const definitions = names.flatMap((name) => registry.deferredTool(name) ?? []);
  const base = { role: 'tool' as const, toolCallId: call.id, name: call.name, metadata };
  if (names.length === 0) {
    return [
      {
        ...base,
        id: `${call.id}-result`,
        content: 'No tool matched. Try other words, or a regular expression such as "/weather|forecast/i".',
      },
    ];
  }
  const listed = names.join(', ');
  switch (mechanism) {
    case 'neutral':
    case 'openai-tool-search':
      return [
        {
          ...base,
          id: `${call.id}-result`,
          content: JSON.stringify({
            loaded: definitions,
            usage:
              mechanism === 'neutral'
                ? `Call a loaded tool with ${registry.callTool.name}({"name": <tool name>, "arguments": {...}}).`
                : 'Call a loaded tool by its name.',
          }),
        },
      ];
    case 'anthropic-tool-search': {
      const references: ContentPart[] = names.map((name) => ({
        type: 'provider',
        format: 'anthropic',
        kind: 'tool_reference',
        value: { type: 'tool_reference', tool_name: name },
      }));
      return [
        {
          ...base,
          id: `${call.id}-result`,
          content: [{ type: 'text', text: `Loaded: ${listed}.` }, ...references],
        },
      ];
    }
    case 'anthropic-inline':
      return [
        { ...base, id: `${call.id}-result`, content: `Loaded: ${listed}. Call them by name.` },
        {
          id: `${call.id}-tools`,
          role: 'user',
          metadata,
          content: definitions.map(
            (definition): ContentPart => ({
              type: 'provider',
              format: 'anthropic',
              kind: 'tool_addition',
              value: {
                type: 'tool_addition',
                tool: { type: 'tool_definition', definition: anthropicToolOf(definition) },
              },
            }),
          ),
        },
      ];
  }
}

function invalid(call: ToolCall, reason: string): DeferredToolCallOutcome {
  return {
    type: 'invalid',
    reason,
    messages: [
      {
        id: `${call.id}-result`,
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: reason,
        metadata: { isError: true },
      },
    ],
  };
}

function parseObject(text: string): Readonly<Record<string, unknown>> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Readonly<Record<string, unknown>>)
      : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `text` with every regular-expression metacharacter escaped. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
