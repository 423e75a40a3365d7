import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';

/** The beta of Anthropic's threshold compaction edit `compact_20260112`. */
export const ANTHROPIC_COMPACT_BETA = 'compact-2026-01-12';
/** The beta of Anthropic's on-demand compaction (the `compaction` request parameter). */
export const ANTHROPIC_COMPACT_NOW_BETA = 'compact-2026-09-04';
/** The beta of Anthropic's context editing (`clear_tool_uses_20250919`). */
export const ANTHROPIC_CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

/** The input-token threshold of `compact_20260112` when none is given (Anthropic's default). */
export const DEFAULT_ANTHROPIC_COMPACT_TRIGGER = 150_000;
/** The smallest threshold Anthropic accepts for `compact_20260112` (below it the API answers 400). */
export const MIN_ANTHROPIC_COMPACT_TRIGGER = 50_000;

/** Anthropic's threshold compaction: the server summarises the conversation once its input passes a threshold. */
export type AnthropicCompactOptions = {
  /**
   * Input tokens at which the server compacts. At least 50,000 (a smaller value is an error here,
   * not a silent clamp). @default 150000 (Anthropic's default; the edit is sent without a trigger)
   */
  readonly triggerTokens?: number;
  /** Additional instructions for the server's summary (the SDK types them as added to its prompt). */
  readonly instructions?: string;
  /**
   * Return the compaction block alone (`stop_reason: 'compaction'`) so the client can adjust (store
   * the record, re-inject pins) before the turn goes on. @default false
   */
  readonly pauseAfterCompaction?: boolean;
};

/** Anthropic's tool-use clearing: the server drops old tool results (the client keeps its history). */
export type AnthropicClearToolUsesOptions = {
  /** Input tokens at which clearing starts. @default 100000 (Anthropic's default; sent without a trigger) */
  readonly triggerTokens?: number;
  /** Or: the number of tool uses at which clearing starts (instead of `triggerTokens`). */
  readonly triggerToolUses?: number;
  /** Tool uses kept, newest first. @default 3 (Anthropic's default) */
  readonly keep?: number;
  /** Clear only when at least this many input tokens can be cleared. */
  readonly clearAtLeast?: number;
  /** Tools whose uses are never cleared. */
  readonly excludeTools?: readonly string[];
  /** Also clear the tool calls' inputs: all (`true`) or those of the named tools. @default false */
  readonly clearToolInputs?: boolean | readonly string[];
};

/** Options for {@link anthropicContextManagement}: the server-side edits to turn on. */
export type AnthropicContextManagementOptions = {
  /** Threshold compaction (`compact_20260112`); `true` for Anthropic's defaults. */
  readonly compact?: boolean | AnthropicCompactOptions;
  /** Tool-use clearing (`clear_tool_uses_20250919`); `true` for Anthropic's defaults. */
  readonly clearToolUses?: boolean | AnthropicClearToolUsesOptions;
};

const COMPACT_KEYS = {
  triggerTokens: true,
  instructions: true,
  pauseAfterCompaction: true,
} as const satisfies OptionKeys<AnthropicCompactOptions>;

const CLEAR_KEYS = {
  triggerTokens: true,
  triggerToolUses: true,
  keep: true,
  clearAtLeast: true,
  excludeTools: true,
  clearToolInputs: true,
} as const satisfies OptionKeys<AnthropicClearToolUsesOptions>;

/** The keys of {@link AnthropicContextManagementOptions}. */
export const ANTHROPIC_CONTEXT_MANAGEMENT_OPTION_KEYS = {
  compact: true,
  clearToolUses: true,
} as const satisfies OptionKeys<AnthropicContextManagementOptions>;

type Trigger = { readonly type: 'input_tokens' | 'tool_uses'; readonly value: number };

/** The `compact_20260112` edit, shaped as `@anthropic-ai/sdk`'s `BetaCompact20260112Edit`. */
export type AnthropicCompactEdit = {
  readonly type: 'compact_20260112';
  readonly trigger?: { readonly type: 'input_tokens'; readonly value: number };
  readonly instructions?: string;
  readonly pause_after_compaction?: boolean;
};

/** The `clear_tool_uses_20250919` edit, shaped as `@anthropic-ai/sdk`'s `BetaClearToolUses20250919Edit`. */
export type AnthropicClearToolUsesEdit = {
  readonly type: 'clear_tool_uses_20250919';
  readonly trigger?: Trigger;
  readonly keep?: { readonly type: 'tool_uses'; readonly value: number };
  readonly clear_at_least?: { readonly type: 'input_tokens'; readonly value: number };
  readonly exclude_tools?: string[];
  readonly clear_tool_inputs?: boolean | string[];
};

/** What {@link anthropicContextManagement} returns: spread into `client.beta.messages.create({...})`. */
export type AnthropicContextManagementRequest = {
  readonly context_management: { readonly edits: (AnthropicClearToolUsesEdit | AnthropicCompactEdit)[] };
  /** The betas the edits need (`anthropic-beta`). */
  readonly betas: string[];
};

/**
 * The request fields that turn on Anthropic's server-side context management: `context_management`
 * with the edits asked for (tool-use clearing first, then compaction, the order the API applies
 * them) and the `betas` they need. Spread into a beta Messages request with the messages of
 * `toAnthropicMessages`; read the returned `compaction` block with `providerCompactionRecord`.
 * @throws ContextError `INVALID_OPTIONS` for an unknown key, no edit, a trigger under 50,000 tokens
 * or a count that is not a positive integer.
 * @example
 * const response = await client.beta.messages.create({
 *   model, max_tokens: 4096, ...toAnthropicMessages(view),
 *   ...anthropicContextManagement({ compact: { triggerTokens: 120_000 } }),
 * });
 */
export function anthropicContextManagement(
  options: AnthropicContextManagementOptions,
): AnthropicContextManagementRequest {
  checkOptions(options, {
    where: 'anthropicContextManagement options',
    known: ANTHROPIC_CONTEXT_MANAGEMENT_OPTION_KEYS,
    nested: { compact: { known: COMPACT_KEYS }, clearToolUses: { known: CLEAR_KEYS } },
  });
  const edits: (AnthropicClearToolUsesEdit | AnthropicCompactEdit)[] = [];
  const betas: string[] = [];
  const clear = options.clearToolUses;
  if (clear !== undefined && clear !== false) {
    edits.push(clearEdit(clear === true ? {} : clear));
    betas.push(ANTHROPIC_CONTEXT_MANAGEMENT_BETA);
  }
  const compact = options.compact;
  if (compact !== undefined && compact !== false) {
    edits.push(compactEdit(compact === true ? {} : compact));
    betas.push(ANTHROPIC_COMPACT_BETA);
  }
  if (edits.length === 0)
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'anthropicContextManagement was given no edit; pass compact and/or clearToolUses (true for the defaults).',
    });
  return { context_management: { edits }, betas };
}

function compactEdit(options: AnthropicCompactOptions): AnthropicCompactEdit {
  const { triggerTokens, instructions, pauseAfterCompaction } = options;
  if (triggerTokens !== undefined) {
    positiveInteger(triggerTokens, { name: 'compact.triggerTokens' });
    if (triggerTokens < MIN_ANTHROPIC_COMPACT_TRIGGER)
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `compact.triggerTokens is ${triggerTokens}, under Anthropic's minimum of ${MIN_ANTHROPIC_COMPACT_TRIGGER} (the API refuses it); raise it or compact on demand with anthropicCompactNow.`,
      });
  }
  return {
    type: 'compact_20260112',
    ...(triggerTokens === undefined ? {} : { trigger: { type: 'input_tokens', value: triggerTokens } }),
    ...(instructions === undefined ? {} : { instructions }),
    ...(pauseAfterCompaction === undefined ? {} : { pause_after_compaction: pauseAfterCompaction }),
  };
}

function clearEdit(options: AnthropicClearToolUsesOptions): AnthropicClearToolUsesEdit {
  const { triggerTokens, triggerToolUses, keep, clearAtLeast, excludeTools, clearToolInputs } = options;
  if (triggerTokens !== undefined && triggerToolUses !== undefined)
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'clearToolUses takes triggerTokens or triggerToolUses, not both; keep one.',
    });
  for (const [name, value] of [
    ['clearToolUses.triggerTokens', triggerTokens],
    ['clearToolUses.triggerToolUses', triggerToolUses],
    ['clearToolUses.keep', keep],
    ['clearToolUses.clearAtLeast', clearAtLeast],
  ] as const)
    if (value !== undefined) positiveInteger(value, { name, zero: name === 'clearToolUses.keep' });
  const trigger: Trigger | undefined =
    triggerTokens !== undefined
      ? { type: 'input_tokens', value: triggerTokens }
      : triggerToolUses !== undefined
        ? { type: 'tool_uses', value: triggerToolUses }
        : undefined;
  return {
    type: 'clear_tool_uses_20250919',
    ...(trigger === undefined ? {} : { trigger }),
    ...(keep === undefined ? {} : { keep: { type: 'tool_uses', value: keep } }),
    ...(clearAtLeast === undefined ? {} : { clear_at_least: { type: 'input_tokens', value: clearAtLeast } }),
    ...(excludeTools === undefined ? {} : { exclude_tools: [...excludeTools] }),
    ...(clearToolInputs === undefined
      ? {}
      : { clear_tool_inputs: typeof clearToolInputs === 'boolean' ? clearToolInputs : [...clearToolInputs] }),
  };
}

/** Throws `INVALID_OPTIONS` unless `value` is a positive integer (or 0 when `zero` is allowed). */
export function positiveInteger(
  value: number,
  { name, zero = false }: { readonly name: string; readonly zero?: boolean },
): void {
  if (Number.isInteger(value) && (value > 0 || (zero && value === 0))) return;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${name} is ${value}; it must be a ${zero ? 'non-negative' : 'positive'} whole number.`,
  });
}
