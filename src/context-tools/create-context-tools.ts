import { checkOptions } from '../core/check-options.js';
import { ContextError, toContextError } from '../core/errors.js';
import type { ToolCall } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { RuntimeContextBlock } from '../pipeline/build-input.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { resolveInside } from '../workspace/safe-path.js';
import { budgetNoteText } from './budget-note.js';
import { CONTEXT_TOOL_DEFINITIONS } from './context-tool-definitions.js';
import { runContextTool } from './context-tool-handlers.js';
import {
  CONTEXT_TOOL_NAMES,
  type ContextToolName,
  type ContextToolResult,
  toolError,
} from './context-tool-result.js';
import {
  CREATE_CONTEXT_TOOLS_NESTED_OPTIONS,
  CREATE_CONTEXT_TOOLS_OPTION_KEYS,
  type CreateContextToolsOptions,
  DEFAULT_CONTEXT_TOOLS,
} from './context-tools-options.js';
import { type ContextUsage, measureContextUsage } from './context-usage.js';
import type { ResolvedContextTools } from './resolved-context-tools.js';

/** Options of {@link ContextTools.execute}. */
export type ContextToolExecuteOptions = { readonly signal?: AbortSignal };

/** The context tools for one session: their definitions and one `execute` for every call. */
export type ContextTools = {
  /** The definitions to send with the request (JSON Schema parameters), byte-stable. */
  readonly definitions: readonly ToolDefinition[];
  /** The tools offered. */
  readonly names: readonly ContextToolName[];
  /** True when `name` is one of the tools offered. */
  handles(name: string): boolean;
  /**
   * Runs one call. Bad arguments and refusals are error results the model reads, never exceptions.
   * @throws ContextError `ABORTED` when the signal aborts.
   */
  execute(call: ToolCall, options?: ContextToolExecuteOptions): Promise<ContextToolResult>;
  /** The tokens used and left now, and where automatic compaction starts. */
  usage(): Promise<ContextUsage>;
  /**
   * The budget note for the volatile tail of the next request (pass it in `BuildInput.runtimeContext`),
   * when the context has passed `budgetNoteRatio` of the usable window; otherwise `undefined`.
   */
  budgetNote(): Promise<RuntimeContextBlock | undefined>;
};

/**
 * Makes the tools a model calls to manage its own context, over the session's append-only history:
 * `recall` and `expand` (search and read what is out of view: summarised or cleared messages,
 * offloaded tool results, `memory/history.jsonl`), `compact_now` (refused while the context is small),
 * `context_remaining`, `new_context` (durable notes and a reset, refused with nothing changed when the
 * write fails), `notes`, and `memory` (Anthropic's memory-tool commands over a confined folder).
 * Adapters: `contextToolSet` (ctxloom/ai-sdk), `openAIContextTools`, `anthropicContextTools`.
 * @throws ContextError `INVALID_OPTIONS` for unknown options, a missing workspace, store or session
 * key, an unknown tool name, `compact_now` without a summarizer, or numbers out of range.
 * @example
 * const contextTools = createContextTools({ workspace, store, sessionKey, summarizer });
 * const result = await contextTools.execute({ id: 'call_1', name: 'recall', arguments: '{"query":"port"}' });
 */
export function createContextTools(options: CreateContextToolsOptions): ContextTools {
  checkOptions(options, {
    where: 'createContextTools options',
    known: CREATE_CONTEXT_TOOLS_OPTION_KEYS,
    nested: CREATE_CONTEXT_TOOLS_NESTED_OPTIONS,
  });
  const resolved = resolveOptions(options);
  const names = resolved.names;
  const definitions = names.map((name) => CONTEXT_TOOL_DEFINITIONS[name]);
  const usage = (): Promise<ContextUsage> => measureContextUsage(resolved, definitions);
  return {
    definitions,
    names,
    handles: (name) => (names as readonly string[]).includes(name),
    usage,
    budgetNote: async () => {
      const text = budgetNoteText(await usage(), resolved.budgetNoteRatio);
      return text === undefined ? undefined : { source: 'context-budget', content: text };
    },
    execute: async (call, executeOptions = {}) => {
      if (!(names as readonly string[]).includes(call.name))
        return toolError(
          `Unknown context tool ${JSON.stringify(call.name)}; the tools are ${names.join(', ')}.`,
        );
      try {
        return await runContextTool(call, { resolved, definitions, signal: executeOptions.signal });
      } catch (error) {
        const failure = toContextError(error);
        if (failure.code === 'ABORTED') throw failure;
        return toolError(`${call.name} failed (${failure.code}): ${failure.message}`);
      }
    },
  };
}

function resolveOptions(options: CreateContextToolsOptions): ResolvedContextTools {
  checkParts(options);
  const now = options.now ?? (() => new Date());
  return {
    options,
    names: toolNames(options),
    ...resolveNumbers(options),
    tokenCounter: options.tokenCounter ?? new SimpleTokenCounter(),
    memoryRoot: resolveInside(options.workspace, options.memoryDir ?? DEFAULT_CONTEXT_TOOLS.memoryDir),
    readOnlyMemoryFiles: options.readOnlyMemoryFiles ?? DEFAULT_CONTEXT_TOOLS.readOnlyMemoryFiles,
    isWorkspaceScopeAllowed: options.isWorkspaceScopeAllowed ?? true,
    now,
    generateId: options.generateId ?? (() => `ctx-${now().getTime().toString(36)}`),
  };
}

type ResolvedNumbers = Pick<
  ResolvedContextTools,
  | 'contextWindowTokens'
  | 'maxOutputTokens'
  | 'compactFloorTokens'
  | 'maxMemoryFileBytes'
  | 'maxNotesChars'
  | 'recallPageSize'
  | 'expandPageChars'
  | 'regexTimeoutMs'
  | 'budgetNoteRatio'
>;

function resolveNumbers(options: CreateContextToolsOptions): ResolvedNumbers {
  const defaults = DEFAULT_CONTEXT_TOOLS;
  const window = positive(options, 'contextWindowTokens') ?? defaults.contextWindowTokens;
  const reserve = nonNegative(options, 'maxOutputTokens') ?? defaults.maxOutputTokens;
  if (reserve >= window)
    throw invalid(`maxOutputTokens (${reserve}) must be under contextWindowTokens (${window}).`);
  const ratio = positive(options, 'budgetNoteRatio') ?? defaults.budgetNoteRatio;
  if (ratio > 1) throw invalid(`budgetNoteRatio must be in (0, 1]; got ${ratio}.`);
  return {
    contextWindowTokens: window,
    maxOutputTokens: reserve,
    compactFloorTokens: nonNegative(options, 'compactFloorTokens') ?? Math.floor(window / 4),
    maxMemoryFileBytes: positive(options, 'maxMemoryFileBytes') ?? defaults.maxMemoryFileBytes,
    maxNotesChars: positive(options, 'maxNotesChars') ?? defaults.maxNotesChars,
    recallPageSize: positive(options, 'recallPageSize') ?? defaults.recallPageSize,
    expandPageChars: positive(options, 'expandPageChars') ?? defaults.expandPageChars,
    regexTimeoutMs: positive(options, 'regexTimeoutMs') ?? defaults.regexTimeoutMs,
    budgetNoteRatio: ratio,
  };
}

function invalid(message: string): ContextError {
  return new ContextError({ code: 'INVALID_OPTIONS', message });
}

function checkParts(options: CreateContextToolsOptions): void {
  if (typeof options.workspace !== 'string' || options.workspace.trim() === '')
    throw invalid('createContextTools needs `workspace`: the agent workspace folder.');
  if (typeof options.store !== 'object' || options.store === null)
    throw invalid('createContextTools needs `store`: the SessionStore the session lives in.');
  if (typeof options.sessionKey !== 'string' || options.sessionKey === '')
    throw invalid('createContextTools needs `sessionKey`: the session the tools act on.');
}

type NumericOption = {
  [TKey in keyof CreateContextToolsOptions]-?: CreateContextToolsOptions[TKey] extends number | undefined
    ? TKey
    : never;
}[keyof CreateContextToolsOptions];

function positive(options: CreateContextToolsOptions, name: NumericOption): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (!(Number.isFinite(value) && value > 0))
    throw invalid(`${name} must be a positive number; got ${value}.`);
  return value;
}

function nonNegative(options: CreateContextToolsOptions, name: NumericOption): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (!(Number.isFinite(value) && value >= 0)) throw invalid(`${name} must be a number ≥ 0; got ${value}.`);
  return value;
}

function toolNames(options: CreateContextToolsOptions): readonly ContextToolName[] {
  const wanted =
    options.tools ??
    CONTEXT_TOOL_NAMES.filter((name) => name !== 'compact_now' || options.summarizer !== undefined);
  const unknown = wanted.filter((name) => !CONTEXT_TOOL_NAMES.includes(name));
  if (unknown.length > 0)
    throw invalid(
      `Unknown context tools ${unknown.join(', ')}; the tools are ${CONTEXT_TOOL_NAMES.join(', ')}.`,
    );
  if (wanted.includes('compact_now') && options.summarizer === undefined)
    throw invalid(
      'The compact_now tool needs a `summarizer` (a ChatModel); pass one or leave compact_now out of `tools`.',
    );
  return CONTEXT_TOOL_NAMES.filter((name) => wanted.includes(name));
}
