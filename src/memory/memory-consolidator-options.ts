import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ArchivedSummary } from '../pipeline/build-input.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Builds the system prompt of an ordinary turn, so archive requests share its prompt-cache prefix. */
export type SystemPromptSource = (context: {
  readonly sessionKey: string;
  /** The session's persisted archived summary (`_last_summary`), if any. */
  readonly summary?: ArchivedSummary;
}) => Promise<string> | string;

/** Options for {@link MemoryConsolidator}. */
export type MemoryConsolidatorOptions = {
  /** The agent workspace (`memory/history.jsonl` or `memory/HISTORY.md` live there). */
  readonly workspace: string;
  /** Where the sessions are. */
  readonly store: SessionStore;
  /** Summarises archived turns. */
  readonly model: ChatModel;
  /** The model's context window; ≤ 0 disables token-triggered consolidation. */
  readonly contextWindowTokens: number;
  /** Tokens reserved for the reply. */
  readonly maxOutputTokens: number;
  /** Shrink the prompt to this fraction of the budget (0.1–0.95). @default 0.5 */
  readonly consolidationRatio?: number;
  /** Counts prompt tokens. @default a SimpleTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** The ordinary turn's system prompt. @default a short generic assistant prompt */
  readonly systemPrompt?: SystemPromptSource;
  /** The agent's tool schemas, sent with `toolChoice: 'none'` for prompt-cache reuse. @default none */
  readonly tools?: readonly ToolDefinition[];
  /** Our archive instruction (`{count}` = messages to summarise). @default DEFAULT_ARCHIVE_INSTRUCTION */
  readonly archiveInstruction?: string;
  /** `jsonl` writes memory/history.jsonl; `legacy-markdown` appends to memory/HISTORY.md (the older layout). @default 'jsonl' */
  readonly historyFormat?: 'jsonl' | 'legacy-markdown';
  /** Cap on a model summary entry. @default 8000 */
  readonly maxSummaryChars?: number;
  /** Cap on one raw archive entry; a longer raw archive is split into several entries. @default 16000 */
  readonly maxRawArchiveChars?: number;
  /** Archive rounds per `maybeConsolidate` call (one model request each); `Infinity` = until under target. @default 5 */
  readonly maxRounds?: number;
  /**
   * What an unusable reply (cut, filtered, no finish reason, reasoning only, empty, tool calls) does:
   * `fail` throws and changes nothing, so the turns are asked again next time; `raw-archive` archives
   * them raw as nanobot does. @default 'fail'
   */
  readonly unusableReply?: 'fail' | 'raw-archive';
  /** The clock (history timestamps, idle checks). @default the system clock */
  readonly now?: () => Date;
  /** Receives a line per step of long work (CLI progress). @default none */
  readonly onProgress?: (line: string) => void;
};

/** The keys of {@link MemoryConsolidatorOptions}, for `checkOptions`. @internal */
export const MEMORY_CONSOLIDATOR_OPTION_KEYS = {
  workspace: true,
  store: true,
  model: true,
  contextWindowTokens: true,
  maxOutputTokens: true,
  consolidationRatio: true,
  tokenCounter: true,
  systemPrompt: true,
  tools: true,
  archiveInstruction: true,
  historyFormat: true,
  maxSummaryChars: true,
  maxRawArchiveChars: true,
  maxRounds: true,
  unusableReply: true,
  now: true,
  onProgress: true,
} as const satisfies OptionKeys<MemoryConsolidatorOptions>;

/** Defaults of {@link MemoryConsolidatorOptions}. */
export const DEFAULT_MEMORY_CONSOLIDATOR = Object.freeze({
  consolidationRatio: 0.5,
  maxSummaryChars: 8000,
  maxRawArchiveChars: 16_000,
  maxRounds: 5,
  unusableReply: 'fail',
  systemPrompt: 'You are a helpful assistant.',
});

/** `contextWindowTokens − maxOutputTokens − 1024`: what one archive request may hold. */
export function consolidationBudget(
  options: Pick<MemoryConsolidatorOptions, 'contextWindowTokens' | 'maxOutputTokens'>,
): number {
  return options.contextWindowTokens - options.maxOutputTokens - 1024;
}

/** @throws ContextError `INVALID_OPTIONS` for a ratio outside 0.1–0.95, a window with no budget or bad counts. */
export function validateMemoryConsolidatorOptions(options: MemoryConsolidatorOptions): void {
  checkOptions(options, { where: 'new MemoryConsolidator options', known: MEMORY_CONSOLIDATOR_OPTION_KEYS });
  const invalid = (message: string): never => {
    throw new ContextError({ code: 'INVALID_OPTIONS', message });
  };
  const ratio = options.consolidationRatio ?? DEFAULT_MEMORY_CONSOLIDATOR.consolidationRatio;
  if (!(ratio >= 0.1 && ratio <= 0.95))
    invalid(`consolidationRatio must be between 0.1 and 0.95, got ${ratio}.`);
  const { contextWindowTokens: window, maxOutputTokens: output } = options;
  if (!Number.isInteger(window)) invalid(`contextWindowTokens must be a whole number, got ${window}.`);
  if (!(Number.isInteger(output) && output >= 0))
    invalid(`maxOutputTokens must be a whole number ≥ 0, got ${output}.`);
  const budget = consolidationBudget(options);
  if (window > 0 && budget <= 0) {
    invalid(
      `contextWindowTokens ${window} leaves no room to consolidate: ${window} − maxOutputTokens ${output} − 1024 reserved = ${budget} tokens. Raise contextWindowTokens above ${output + 1024} (CLI --context-window), lower maxOutputTokens (CLI --max-output), or use 0 to turn consolidation off.`,
    );
  }
  const rounds = options.maxRounds ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRounds;
  if (!(rounds === Number.POSITIVE_INFINITY || (Number.isInteger(rounds) && rounds >= 1)))
    invalid(`maxRounds must be a whole number ≥ 1 or Infinity, got ${rounds}.`);
}
