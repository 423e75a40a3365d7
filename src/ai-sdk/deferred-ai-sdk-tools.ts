import type { Tool, ToolSet } from 'ai';
import { handleDeferredToolCall } from '../context-tools/handle-deferred-tool-call.js';
import type { ToolRegistry } from '../context-tools/tool-registry.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { textOf } from '../core/content.js';
import { loadOptional } from '../sessions/load-optional.js';
import { fieldOf } from './ai-sdk-message-like.js';
import type { AiSdkToolSet } from './ai-sdk-tool-definitions.js';

/** Options of {@link deferredAiSdkTools}. */
export type DeferredAiSdkToolsOptions = {
  /** The registry: its `tools` and `deferred` name the tools of {@link DeferredAiSdkToolsOptions.tools}. */
  readonly registry: ToolRegistry;
  /** The AI SDK tools (with `execute`) of every tool of the registry, eager and deferred, by name. */
  readonly tools: AiSdkToolSet;
  /** The tools loaded earlier (the session's: `readLoadedTools(session.metadata)`). @default [] */
  readonly loaded?: readonly string[];
  /**
   * Called after a search loaded tools that were not loaded, before its result goes to the model: store
   * them here (`saveLoadedTools(store, sessionKey, added)`), so the next turn and a new process have them.
   */
  readonly onLoad?: (loaded: readonly string[], added: readonly string[]) => void | Promise<void>;
};

/** The known keys of {@link DeferredAiSdkToolsOptions}. */
export const DEFERRED_AI_SDK_TOOLS_OPTION_KEYS = {
  registry: true,
  tools: true,
  loaded: true,
  onLoad: true,
} as const satisfies OptionKeys<DeferredAiSdkToolsOptions>;

/** What {@link deferredAiSdkTools} returns. */
export type DeferredAiSdkTools = {
  /**
   * The `tools` of `generateText` / `streamText` / `ToolLoopAgent` for every step: the registry's eager
   * tools as given, the search tool and the `call_tool` dispatcher. The same tools on every step, so
   * the provider receives the same tool list however many tools the model loads.
   */
  readonly tools: ToolSet;
  /** The tools loaded so far, in load order. */
  loaded(): readonly string[];
};

/**
 * Deferred tools for the AI SDK (6 and 7), the provider-neutral way: the model searches with the
 * search tool (BM25 or `/regex/` over names, descriptions and parameter names), gets the matches'
 * JSON Schemas in the result, and calls them through `call_tool`, which validates the arguments with
 * the tool's own `inputSchema` and runs its `execute`. The tool list sent never changes, unlike the AI
 * SDK 7 `toolSearch()` with `deferLoading` (whose direct mode adds loaded tools to the list).
 * @throws ContextError `INVALID_OPTIONS` for an unknown option, a registry tool missing from `tools`
 * or a tool of `tools` the registry does not know; `DEPENDENCY_MISSING` without the `ai` package.
 * @example
 * const registry = createToolRegistry({ tools: [readFileDefinition], deferred: mcpDefinitions });
 * const deferred = await deferredAiSdkTools({ registry, tools: { read_file, ...mcpTools }, loaded,
 *   onLoad: (_, added) => saveLoadedTools(store, key, added) });
 * await generateText({ model, tools: deferred.tools, stopWhen: stepCountIs(10), prompt });
 */
export async function deferredAiSdkTools(options: DeferredAiSdkToolsOptions): Promise<DeferredAiSdkTools> {
  checkOptions(options, { where: 'deferredAiSdkTools options', known: DEFERRED_AI_SDK_TOOLS_OPTION_KEYS });
  const { registry } = options;
  const names = [...registry.tools, ...registry.deferred].map((tool) => tool.name);
  const missing = names.filter((name) => options.tools[name] === undefined);
  const known = new Set(names);
  const unknown = Object.keys(options.tools).filter((name) => !known.has(name));
  if (missing.length > 0 || unknown.length > 0) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `deferredAiSdkTools needs one AI SDK tool per registry tool, by name: ${[
        missing.length > 0 ? `missing ${missing.join(', ')}` : '',
        unknown.length > 0 ? `not in the registry ${unknown.join(', ')} (add them to its tools or deferred)` : '',
      ]
        .filter((part) => part !== '')
        .join('; ')}.`,
      details: { missing, unknown },
    });
  }
  const { asSchema, jsonSchema } = await loadOptional('ai', () => import('ai'), 'Deferred AI SDK tools');
  let loaded = options.loaded ?? [];
  // The eager tools are the caller's AI SDK tools, passed on as they are.
  const eager = Object.fromEntries(registry.tools.map((tool) => [tool.name, options.tools[tool.name] as Tool]));
  const search: Tool = {
    description: registry.searchTool.description ?? '',
    inputSchema: jsonSchema(registry.searchTool.parameters ?? {}),
    execute: async (input: unknown, execution: { readonly toolCallId: string }): Promise<unknown> => {
      const call = { id: execution.toolCallId, name: registry.searchTool.name, arguments: JSON.stringify(input) };
      const outcome = handleDeferredToolCall(registry, call, { mechanism: 'neutral', loaded });
      if (outcome.type === 'invalid') return { error: outcome.reason };
      if (outcome.type !== 'search') return { error: `${call.name} did not run.` };
      if (outcome.added.length > 0) {
        loaded = outcome.loaded;
        await options.onLoad?.(outcome.loaded, outcome.added);
      }
      const [result] = outcome.messages;
      const text = result === undefined ? '' : textOf(result.content);
      return outcome.matches.length === 0 ? { loaded: [], note: text } : (JSON.parse(text) as unknown);
    },
  };
  const dispatcher: Tool = {
    description: registry.callTool.description ?? '',
    inputSchema: jsonSchema(registry.callTool.parameters ?? {}),
    execute: async (input: unknown, execution: { readonly toolCallId: string }): Promise<unknown> => {
      const call = { id: execution.toolCallId, name: registry.callTool.name, arguments: JSON.stringify(input) };
      const outcome = handleDeferredToolCall(registry, call, { mechanism: 'neutral', loaded });
      if (outcome.type === 'invalid') return { error: outcome.reason };
      if (outcome.type !== 'call') return { error: `${call.name} did not run.` };
      const target = options.tools[outcome.call.name] ?? {};
      const execute = fieldOf(target, 'execute');
      if (typeof execute !== 'function') return { error: `The tool "${outcome.call.name}" has no execute function.` };
      const args: unknown = JSON.parse(outcome.call.arguments);
      const inputSchema = fieldOf(target, 'inputSchema');
      if (inputSchema !== undefined) {
        // asSchema takes every schema form the AI SDK accepts for `inputSchema`.
        const schema = asSchema(inputSchema as Parameters<typeof asSchema>[0]);
        const validation = await schema.validate?.(args);
        if (validation !== undefined && !validation.success) {
          return { error: `Invalid arguments for ${outcome.call.name}: ${validation.error.message}` };
        }
        if (validation?.success) return (execute as ToolExecute)(validation.value, execution);
      }
      return (execute as ToolExecute)(args, execution);
    },
  };
  return {
    tools: { ...eager, [registry.searchTool.name]: search, [registry.callTool.name]: dispatcher },
    loaded: () => loaded,
  };
}

/** An AI SDK tool's `execute`, as the dispatcher calls it (with the call's own execution options). */
type ToolExecute = (input: unknown, execution: unknown) => unknown;
