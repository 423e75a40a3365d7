import type { TokenCounter } from '../tokens/token-counter.js';
import type { ContextToolName } from './context-tool-result.js';
import type { CreateContextToolsOptions } from './context-tools-options.js';

/** The options of `createContextTools`, resolved once. @internal */
export type ResolvedContextTools = {
  readonly options: CreateContextToolsOptions;
  readonly names: readonly ContextToolName[];
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  readonly tokenCounter: TokenCounter;
  readonly compactFloorTokens: number;
  readonly memoryRoot: string;
  readonly maxMemoryFileBytes: number;
  readonly readOnlyMemoryFiles: readonly string[];
  readonly maxNotesChars: number;
  readonly isWorkspaceScopeAllowed: boolean;
  readonly recallPageSize: number;
  readonly expandPageChars: number;
  readonly regexTimeoutMs: number;
  readonly budgetNoteRatio: number;
  readonly now: () => Date;
  readonly generateId: () => string;
};
