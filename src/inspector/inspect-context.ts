import {
  type BuildTrace,
  ContextError,
  type Decision,
  EstimatingTokenCounter,
  isContextLossWarning,
  type Message,
  type TokenCounter,
  type ToolDefinition,
  traceDecisions,
} from '../index.js';
import { type ContextPiece, contextPieces } from './context-pieces.js';
import { type CategoryKey, STANDARD_CATEGORIES } from './section-category.js';

/** Options for {@link inspectContext}. */
export type InspectContextOptions = {
  /** The final messages sent to the model (a build's `messages`). */
  readonly messages: readonly Message[];
  /** The build's trace: its decisions and stage errors are reported. @default no decisions */
  readonly trace?: BuildTrace;
  /** The tool definitions sent with the request. @default [] */
  readonly tools?: readonly ToolDefinition[];
  /** The model's context window, in tokens. */
  readonly contextWindowTokens: number;
  /** Tokens reserved for the model's answer. @default 0 */
  readonly maxOutputTokens?: number;
  /** The model name shown in the report. @default 'unknown' */
  readonly model?: string;
  /** Counts the messages and tools; use the build's counter. @default EstimatingTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** Share of the window (0–1) from which one item (a tool result, a file) is warned about. @default 0.1 */
  readonly largeItemShare?: number;
};

/** Defaults of {@link InspectContextOptions}. */
export const DEFAULT_INSPECT_CONTEXT = Object.freeze({
  maxOutputTokens: 0,
  model: 'unknown',
  largeItemShare: 0.1,
});

/** One row of the breakdown. `used` rows add up to `usedTokens`; then reserved output, then free space. */
export type ContextCategory = {
  readonly id: string;
  readonly name: string;
  readonly kind: 'used' | 'reserved' | 'free';
  readonly tokens: number;
  /** Share of the context window, in percent, rounded to one decimal. */
  readonly percent: number;
};

/**
 * Something worth a look: the whole history or the newest user message lost (`context-loss`, from the
 * trace's warnings; listed first), one large item, a context over the window, a stage that failed,
 * bytes of the cached prefix that change between builds (`volatile-content`, from the trace's
 * warnings), another warning of the trace (`check`), or a problem the session store reported while
 * loading the session (`store-load`: a corrupt line skipped; `inspectContext` never makes these, the
 * caller that loaded the session adds them, as `ctxloom inspect` does).
 */
export type ContextWarning = {
  readonly type:
    | 'context-loss'
    | 'large-item'
    | 'over-window'
    | 'stage-error'
    | 'volatile-content'
    | 'check'
    | 'store-load';
  readonly message: string;
  readonly tokens?: number;
  readonly messageId?: string;
  /** A trace warning's details (for `volatile-content`: kind, evidence, area, index, section, offset, text). */
  readonly details?: Readonly<Record<string, unknown>>;
};

/** The analysis of one built context: where the window goes, what to look at, what was changed. */
export type ContextInspection = {
  readonly model: string;
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  /** Tokens of the messages plus the tool schemas (the sum of the `used` categories). */
  readonly usedTokens: number;
  readonly categories: readonly ContextCategory[];
  /** Every attributable piece (message or part of a joined message), in context order. */
  readonly pieces: readonly ContextPiece[];
  readonly warnings: readonly ContextWarning[];
  /** Every decision of the trace, in stage order (dropped, offloaded, compacted, backfilled, …). */
  readonly decisions: readonly Decision[];
};

/**
 * Analyses a built context the way Claude Code's `/context` does: tokens by category (each
 * system-prompt part, each bootstrap file, tool schemas, history, the current message, reserved
 * output, free space), warnings about the largest single items and the trace's decisions. Pure: the
 * same input gives the same output. The `used` categories add up to `usedTokens` exactly.
 * @throws ContextError `INVALID_OPTIONS` when the window or the output reserve is not a whole number ≥ 0.
 */
export function inspectContext(options: InspectContextOptions): ContextInspection {
  const resolved = { ...DEFAULT_INSPECT_CONTEXT, ...options };
  checkTokens('contextWindowTokens', resolved.contextWindowTokens);
  checkTokens('maxOutputTokens', resolved.maxOutputTokens);
  const counter = resolved.tokenCounter ?? new EstimatingTokenCounter();
  const pieces = contextPieces(resolved.messages, counter);
  const toolTokens = counter.countTools(resolved.tools ?? []);
  const used = usedCategories(pieces, toolTokens);
  const usedTokens = used.reduce((sum, category) => sum + category.tokens, 0);
  const window = resolved.contextWindowTokens;
  const reserved = resolved.maxOutputTokens;
  const free = Math.max(0, window - usedTokens - reserved);
  const percent = (tokens: number): number => (window === 0 ? 0 : Math.round((tokens / window) * 1000) / 10);
  const categories: ContextCategory[] = [
    ...used.map((category) => ({ ...category, kind: 'used' as const, percent: percent(category.tokens) })),
    {
      id: 'reserved-output',
      name: 'Reserved output',
      kind: 'reserved',
      tokens: reserved,
      percent: percent(reserved),
    },
    { id: 'free', name: 'Free space', kind: 'free', tokens: free, percent: percent(free) },
  ];
  return {
    model: resolved.model,
    contextWindowTokens: window,
    maxOutputTokens: reserved,
    usedTokens,
    categories,
    pieces,
    warnings: [
      ...contextLoss(resolved.trace),
      ...overWindow(usedTokens + reserved, window),
      ...largeItems(pieces, { threshold: Math.max(1, Math.ceil(window * resolved.largeItemShare)), percent }),
      ...stageErrors(resolved.trace),
      ...traceWarnings(resolved.trace),
    ],
    decisions: resolved.trace === undefined ? [] : traceDecisions(resolved.trace),
  };
}

function usedCategories(
  pieces: readonly ContextPiece[],
  toolTokens: number,
): readonly { readonly id: string; readonly name: string; readonly tokens: number }[] {
  const totals = new Map<string, { key: CategoryKey; tokens: number; order: number }>();
  const add = (key: CategoryKey, tokens: number): void => {
    const entry = totals.get(key.id) ?? { key, tokens: 0, order: totals.size };
    entry.tokens += tokens;
    totals.set(key.id, entry);
  };
  for (const key of Object.values(STANDARD_CATEGORIES)) {
    if (key.id !== 'system' && key.id !== 'bootstrap') add(key, 0);
  }
  for (const piece of pieces) add(piece.category, piece.tokens);
  add(STANDARD_CATEGORIES.toolSchemas, toolTokens);
  return [...totals.values()]
    .sort((a, b) => a.key.rank - b.key.rank || a.order - b.order)
    .map((entry) => ({ id: entry.key.id, name: entry.key.name, tokens: entry.tokens }));
}

function overWindow(needed: number, window: number): readonly ContextWarning[] {
  if (needed <= window) return [];
  return [
    {
      type: 'over-window',
      message: `The context and the reserved output need ${needed.toLocaleString('en-US')} tokens but the window is ${window.toLocaleString('en-US')}; raise the window, lower the output reserve or add a budget filter.`,
      tokens: needed,
    },
  ];
}

function largeItems(
  pieces: readonly ContextPiece[],
  { threshold, percent }: { readonly threshold: number; readonly percent: (tokens: number) => number },
): readonly ContextWarning[] {
  return pieces
    .filter((piece) => piece.tokens >= threshold)
    .sort((a, b) => b.tokens - a.tokens)
    .map((piece) => ({
      type: 'large-item',
      message: `${piece.label} takes ${piece.tokens.toLocaleString('en-US')} tokens (${percent(piece.tokens).toFixed(1)}% of the window).`,
      tokens: piece.tokens,
      messageId: piece.messageId,
    }));
}

function stageErrors(trace: BuildTrace | undefined): readonly ContextWarning[] {
  return (trace?.stages ?? []).flatMap((stage) =>
    stage.error === undefined
      ? []
      : [
          {
            type: 'stage-error' as const,
            message: `Stage '${stage.id}' failed and was skipped: ${stage.error.code}: ${stage.error.message}`,
          },
        ],
  );
}

function contextLoss(trace: BuildTrace | undefined): readonly ContextWarning[] {
  return (trace?.warnings ?? []).filter(isContextLossWarning).map((warning) => ({
    type: 'context-loss',
    message: warning.message,
    details: { kind: warning.type, ...warning.details },
  }));
}

function traceWarnings(trace: BuildTrace | undefined): readonly ContextWarning[] {
  return (trace?.warnings ?? [])
    .filter((warning) => !isContextLossWarning(warning))
    .map((warning) => ({
      type: warning.type === 'volatile-content' ? 'volatile-content' : 'check',
      message: `Prompt cache: ${warning.message}`,
      ...(warning.details === undefined ? {} : { details: warning.details }),
    }));
}

function checkTokens(name: string, value: number): void {
  if (Number.isInteger(value) && value >= 0) return;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${name} must be a whole number of tokens ≥ 0, got ${value}; pass e.g. 128000.`,
  });
}
