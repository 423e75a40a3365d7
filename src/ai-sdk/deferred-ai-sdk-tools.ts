import type { Tool, ToolSet } from 'ai';
import { handleDeferredToolCall } from '../context-tools/handle-deferred-tool-call.js';
import type { ToolRegistry } from '../context-tools/tool-registry.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { textOf } from '../core/content.js';
import { ContextError } from '../core/errors.js';
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
   * them here (`saveLoadedTools(store, { sessionKey, names: added })`), so the next turn and a new process have them.
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
 *   onLoad: (_, added) => saveLoadedTools(store, { sessionKey: key, names: added }) });
 * await generateText({ model, tools: deferred.tools, stopWhen: stepCountIs(10), prompt });
 */
export async function deferredAiSdkTools(options: DeferredAiSdkToolsOptions): Promise<DeferredAiSdkTools> {
  checkOptions(options, { where: 'deferredAiSdkTools options', known: DEFERRED_AI_SDK_TOOLS_OPTION_KEYS });
  checkToolSet(options);
  const ai = await loadOptional('ai', () => import('ai'), 'Deferred AI SDK tools');
  const { registry } = options;
  const state = { loaded: options.loaded ?? [] };
  // The eager tools are the caller's AI SDK tools, passed on as they are.
  const eager = Object.fromEntries(
    registry.tools.map((tool) => [tool.name, options.tools[tool.name] as Tool]),
  );
  const run = { options, state, ai };
  return {
    tools: {
      ...eager,
      [registry.searchTool.name]: searchTool(run),
      [registry.callTool.name]: dispatcherTool(run),
    },
    loaded: () => state.loaded,
  };
}

/** What the two tools share: the options, the loaded set, and the `ai` module. */
type ToolsRun = {
  readonly options: DeferredAiSdkToolsOptions;
  readonly state: { loaded: readonly string[] };
  readonly ai: Pick<typeof import('ai'), 'asSchema' | 'jsonSchema'>;
};

/** One AI SDK tool per registry tool, and no other. */
function checkToolSet(options: DeferredAiSdkToolsOptions): void {
  const names = [...options.registry.tools, ...options.registry.deferred].map((tool) => tool.name);
  const missing = names.filter((name) => options.tools[name] === undefined);
  const known = new Set(names);
  const unknown = Object.keys(options.tools).filter((name) => !known.has(name));
  if (missing.length === 0 && unknown.length === 0) return;
  const problems = [
    ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
    ...(unknown.length > 0
      ? [`not in the registry ${unknown.join(', ')} (add them to its tools or deferred)`]
      : []),
  ];
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `deferredAiSdkTools needs one AI SDK tool per registry tool, by name: ${problems.join('; ')}.`,
    details: { missing, unknown },
  });
}

/** The search tool: loads its matches (and reports them through `onLoad`), returns their schemas. */
function searchTool({ options, state, ai }: ToolsRun): Tool {
  const { registry } = options;
  return {
    description: registry.searchTool.description ?? '',
    inputSchema: ai.jsonSchema(registry.searchTool.parameters ?? {}),
    execute: async (input: unknown, execution: { readonly toolCallId: string }): Promise<unknown> => {
      const call = {
        id: execution.toolCallId,
        name: registry.searchTool.name,
        arguments: JSON.stringify(input),
      };
      const outcome = handleDeferredToolCall(call, { registry, mechanism: 'neutral', loaded: state.loaded });
      if (outcome.type === 'invalid') return { error: outcome.reason };
      if (outcome.type !== 'search') return { error: `${call.name} did not run.` };
      if (outcome.added.length > 0) {
        state.loaded = outcome.loaded;
        await options.onLoad?.(outcome.loaded, outcome.added);
      }
      const [result] = outcome.messages;
      const text = result === undefined ? '' : textOf(result.content);
      return outcome.matches.length === 0 ? { loaded: [], note: text } : (JSON.parse(text) as unknown);
    },
  };
}

/** The dispatcher: runs a loaded tool's `execute` with arguments its `inputSchema` accepts. */
function dispatcherTool({ options, state, ai }: ToolsRun): Tool {
  const { registry } = options;
  return {
    description: registry.callTool.description ?? '',
    inputSchema: ai.jsonSchema(registry.callTool.parameters ?? {}),
    execute: async (input: unknown, execution: { readonly toolCallId: string }): Promise<unknown> => {
      const call = {
        id: execution.toolCallId,
        name: registry.callTool.name,
        arguments: JSON.stringify(input),
      };
      const outcome = handleDeferredToolCall(call, { registry, mechanism: 'neutral', loaded: state.loaded });
      if (outcome.type === 'invalid') return { error: outcome.reason };
      if (outcome.type !== 'call') return { error: `${call.name} did not run.` };
      const target = options.tools[outcome.call.name] ?? {};
      const execute = fieldOf(target, 'execute');
      if (typeof execute !== 'function')
        return { error: `The tool "${outcome.call.name}" has no execute function.` };
      const args = await validArguments(JSON.parse(outcome.call.arguments), { target, ai });
      if (!args.success) return { error: `Invalid arguments for ${outcome.call.name}: ${args.message}` };
      return (execute as ToolExecute)(args.value, execution);
    },
  };
}

/** The arguments as the tool's own `inputSchema` validates them (unchanged when it has no validator). */
async function validArguments(
  args: unknown,
  run: { readonly target: object; readonly ai: ToolsRun['ai'] },
): Promise<
  { readonly success: true; readonly value: unknown } | { readonly success: false; readonly message: string }
> {
  const inputSchema = fieldOf(run.target, 'inputSchema');
  if (inputSchema === undefined) return { success: true, value: args };
  // asSchema takes every schema form the AI SDK accepts for `inputSchema`.
  const validation = await run.ai
    .asSchema(inputSchema as Parameters<typeof run.ai.asSchema>[0])
    .validate?.(args);
  if (validation === undefined) return { success: true, value: args };
  return validation.success
    ? { success: true, value: validation.value }
    : { success: false, message: validation.error.message };
}

/** An AI SDK tool's `execute`, as the dispatcher calls it (with the call's own execution options). */
type ToolExecute = (input: unknown, execution: unknown) => unknown;
