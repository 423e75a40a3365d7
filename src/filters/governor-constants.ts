import { ContextError } from '../core/errors.js';
/**
 * The texts and defaults of the context governor (nanobot's `context_governance`), in one place so
 * every step and its tests use the same strings. Every value is overridable through the options of
 * the step that uses it.
 */

/** Assistant contents (after trimming) that mark an omitted message; such assistants are removed. */
export const DEFAULT_PLACEHOLDER_TEXTS: readonly string[] = Object.freeze([
  '[Previous assistant message omitted.]',
]);

/** The content of a backfilled tool result (note the em dash). */
export const DEFAULT_BACKFILL_TEXT = '[Tool result unavailable — call was interrupted or lost]';

/** Tools whose results are never offloaded or truncated (`read_file` is the recovery path, #4153). */
export const DEFAULT_OFFLOAD_EXEMPT_TOOLS: readonly string[] = Object.freeze(['read_file']);

/** Tools whose in-flight results may be compacted under pressure. */
export const DEFAULT_COMPACTABLE_TOOLS: readonly string[] = Object.freeze([
  'read_file',
  'exec',
  'grep',
  'find_files',
  'web_search',
  'web_fetch',
  'list_dir',
  'list_exec_sessions',
]);

/** In-flight results shorter than this are never compacted. */
export const DEFAULT_MIN_COMPACT_CHARS = 500;

/** Compaction stops once the estimate is at or below `floor(budget × ratio)`. */
export const DEFAULT_COMPACTION_TARGET_RATIO = 0.85;

/** Tokens kept free between the input budget and the window besides the output (`SNIP_SAFETY_BUFFER`). */
export const DEFAULT_SAFETY_BUFFER_TOKENS = 1_024;

/** Output tokens assumed when none are configured. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

/** The empty-result text for a tool. */
export function emptyToolResultText(toolName: string): string {
  return `(${toolName} completed with no output)`;
}

/** The compaction notice that replaces a compacted tool result (actionable, to avoid echo loops). */
export function compactionText(toolName: string): string {
  return (
    `Error: The previous ${toolName} result was compacted to fit context because it was too large. ` +
    'Do not repeat the same call unchanged. Retry with a narrower path, query, range, or result limit, ' +
    'use another tool, or tell the user the task cannot fit in the available context.'
  );
}

/** Options that determine the governor's input budget. */
export type InputBudgetOptions = {
  /** The model's context window; 0 or absent turns the budget off (compaction and snipping skip). */
  readonly contextWindowTokens?: number;
  /** Tokens reserved for the answer. @default 4096 */
  readonly maxOutputTokens?: number;
  /** An explicit input budget; overrides the computed one (even when larger than the window). */
  readonly blockLimit?: number;
  /** @default 1024 */
  readonly safetyBufferTokens?: number;
};

/**
 * The governor's input budget: 0 without a window (no budget), else `blockLimit` when set, else
 * `window − maxOutput − safetyBuffer`.
 * @throws ContextError `INVALID_OPTIONS` when the window leaves no room for the input (it is not
 * larger than the output reserve plus the safety buffer) and no `blockLimit` is set, or when a number
 * is not finite.
 */
export function resolveInputBudget(options: InputBudgetOptions): number {
  const window = options.contextWindowTokens ?? 0;
  const output = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const buffer = options.safetyBufferTokens ?? DEFAULT_SAFETY_BUFFER_TOKENS;
  for (const [name, value] of Object.entries({
    contextWindowTokens: window,
    maxOutputTokens: output,
    safetyBufferTokens: buffer,
  })) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `${name} must be a finite number ≥ 0, got ${String(value)}.`,
        details: { [name]: value },
      });
    }
  }
  if (!(window > 0)) return 0;
  if (options.blockLimit !== undefined && options.blockLimit > 0) return Math.floor(options.blockLimit);
  const budget = Math.floor(window - output - buffer);
  if (budget > 0) return budget;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message:
      `The context window (${window} tokens) leaves no room for the input: ${output} tokens are reserved for ` +
      `the answer (maxOutputTokens) and ${buffer} as a safety buffer (safetyBufferTokens). Raise ` +
      'contextWindowTokens, lower maxOutputTokens or safetyBufferTokens, or set blockLimit.',
    details: { contextWindowTokens: window, maxOutputTokens: output, safetyBufferTokens: buffer },
  });
}

export {
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  DEFAULT_OFFLOAD_PREVIEW_CHARS,
} from '../workspace/plan-tool-result-offload.js';
