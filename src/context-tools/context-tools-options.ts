import type { CompactionBreaker } from '../compaction/compaction-breaker.js';
import { PINNED_CONTEXT_OPTION_KEYS, type PinnedContextOptions } from '../compaction/pinned-context.js';
import type { OptionKeys } from '../core/check-options.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ContextToolName } from './context-tool-result.js';

/** How `compact_now` summarises (passed to `compactHistory`). */
export type ContextToolsCompactionOptions = {
  /** Tokens of the newest messages kept raw. @default 8000 */
  readonly keepRecent?: number;
  /** What is never summarised (and what `new_context` keeps in view). @default the latest user request */
  readonly pinned?: PinnedContextOptions;
  /** Replaces the summariser's default system prompt. @default DEFAULT_COMPACTION_PROMPT */
  readonly prompt?: string;
  /** How long the summariser may take. @default 120000 */
  readonly timeoutMs?: number;
  /** The summary's output cap. @default 2000 */
  readonly maxOutputTokens?: number;
  /** Shared with automatic compaction, so repeated failures stop both. */
  readonly breaker?: CompactionBreaker;
};

/** Options for {@link createContextTools}. */
export type CreateContextToolsOptions = {
  /** The agent workspace: offloads under `.ctxloom/tool-results/`, `memory/history.jsonl`, the memory folder. */
  readonly workspace: string;
  /** Where the session lives (records and notes are written to it). */
  readonly store: SessionStore;
  /** The session the tools act on. */
  readonly sessionKey: string;
  /**
   * Which tools to offer. `compact_now` needs a `summarizer`.
   * @default every tool (without `compact_now` when there is no summarizer)
   */
  readonly tools?: readonly ContextToolName[];
  /** The model `compact_now` summarises with (a cheaper one than the agent's is the common case). */
  readonly summarizer?: ChatModel;
  /** The model's context window. @default 65536 */
  readonly contextWindowTokens?: number;
  /** Tokens reserved for the answer (not available to the prompt). @default 8192 */
  readonly maxOutputTokens?: number;
  /** Counts tokens. @default new SimpleTokenCounter() */
  readonly tokenCounter?: TokenCounter;
  /**
   * The tokens the context takes now (e.g. the provider's reported input tokens of the last request).
   * @default the session's view as stored, plus the notes and the tool definitions, counted
   */
  readonly usedTokens?: () => number | Promise<number>;
  /** `compact_now` is refused below this many used tokens. @default a quarter of the window */
  readonly compactFloorTokens?: number;
  /** Where automatic compaction is configured to start, in tokens (reported; ctxloom does not start it here). */
  readonly autoCompactTokens?: number;
  /** How `compact_now` summarises and what `new_context` keeps. @default {} */
  readonly compaction?: ContextToolsCompactionOptions;
  /** The folder `/memories` maps to, relative to the workspace (nanobot's memory files are there). @default 'memory' */
  readonly memoryDir?: string;
  /** The largest memory file read or written, in bytes. @default 262144 */
  readonly maxMemoryFileBytes?: number;
  /** Files of the memory folder the memory tool may read but not change. @default ['history.jsonl'] */
  readonly readOnlyMemoryFiles?: readonly string[];
  /** The longest notes accepted, in characters. @default 8000 */
  readonly maxNotesChars?: number;
  /** Whether `recall` may search other sessions (`scope: 'workspace'`). @default true */
  readonly isWorkspaceScopeAllowed?: boolean;
  /** Hits per recall page when the model gives no limit. @default 10 */
  readonly recallPageSize?: number;
  /** Characters per page of `expand`. @default 8000 */
  readonly expandPageChars?: number;
  /** How long a regular-expression search may run before it is refused. @default 250 */
  readonly regexTimeoutMs?: number;
  /** The budget note appears from this share of the usable window. @default 0.8 */
  readonly budgetNoteRatio?: number;
  /** The clock. @default () => new Date() */
  readonly now?: () => Date;
  /** Makes record ids. @default `ctx-<time>` */
  readonly generateId?: () => string;
};

/** The keys of {@link CreateContextToolsOptions}. */
export const CREATE_CONTEXT_TOOLS_OPTION_KEYS = {
  workspace: true,
  store: true,
  sessionKey: true,
  tools: true,
  summarizer: true,
  contextWindowTokens: true,
  maxOutputTokens: true,
  tokenCounter: true,
  usedTokens: true,
  compactFloorTokens: true,
  autoCompactTokens: true,
  compaction: true,
  memoryDir: true,
  maxMemoryFileBytes: true,
  readOnlyMemoryFiles: true,
  maxNotesChars: true,
  isWorkspaceScopeAllowed: true,
  recallPageSize: true,
  expandPageChars: true,
  regexTimeoutMs: true,
  budgetNoteRatio: true,
  now: true,
  generateId: true,
} as const satisfies OptionKeys<CreateContextToolsOptions>;

/** The nested options of {@link CreateContextToolsOptions}. */
export const CREATE_CONTEXT_TOOLS_NESTED_OPTIONS = {
  compaction: {
    known: {
      keepRecent: true,
      pinned: true,
      prompt: true,
      timeoutMs: true,
      maxOutputTokens: true,
      breaker: true,
    } as const satisfies OptionKeys<ContextToolsCompactionOptions>,
    nested: { pinned: { known: PINNED_CONTEXT_OPTION_KEYS } },
  },
} as const;

/** Defaults of {@link CreateContextToolsOptions}. */
export const DEFAULT_CONTEXT_TOOLS = Object.freeze({
  contextWindowTokens: 65_536,
  maxOutputTokens: 8192,
  memoryDir: 'memory',
  maxMemoryFileBytes: 256 * 1024,
  readOnlyMemoryFiles: Object.freeze(['history.jsonl']),
  maxNotesChars: 8000,
  recallPageSize: 10,
  expandPageChars: 8000,
  regexTimeoutMs: 250,
  budgetNoteRatio: 0.8,
});
