import type { Decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { ToolCallViolation } from '../core/tool-call-integrity.js';
import type { TokenCountKind } from '../tokens/token-counter.js';

/** The record of one provider or filter run. */
export type StageTrace = {
  readonly id: string;
  readonly kind: 'provider' | 'filter';
  /** Wall time of the stage in milliseconds (from the injected clock). */
  readonly durationMs: number;
  /** Messages and tokens of the whole context before and after the stage. */
  readonly messagesIn: number;
  readonly messagesOut: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  /**
   * True when `tokensIn`/`tokensOut` include a rough estimate (characters / 4 plus the per-message
   * overhead) for messages that were dropped before anything needed their exact count. The figures
   * of what is sent (`sections`, `totalTokens`) are always the counter's own.
   */
  readonly tokensEstimated?: boolean;
  readonly decisions: readonly Decision[];
  /** The error the stage threw, when its policy let the build go on. */
  readonly error?: { readonly code: string; readonly message: string };
  /** In debug mode: integrity violations present after this filter. */
  readonly violations?: readonly ToolCallViolation[];
};

/**
 * Tokens per section (the provider that made the messages). A message joined from several sections
 * (`metadata.parts`) is split among them in proportion to their length; those rows carry `partOf`
 * (the joined message's section), and the joined message is counted once, in its first part's row.
 * The rows' tokens add up to the messages' tokens.
 */
export type SectionTokens = {
  readonly section: string;
  readonly messages: number;
  readonly tokens: number;
  readonly partOf?: string;
};

/**
 * Something the caller should know about a build: found by one of the pipeline's `checks` (e.g. bytes
 * in the cached prefix that change between builds), or by the pipeline itself on every request when
 * the request lost the whole history or its newest user message (`ContextLossWarning`, check
 * `context-loss`).
 */
export type TraceWarning = {
  /** Kebab-case kind, e.g. `volatile-content`. */
  readonly type: string;
  /** The id of the check that reported it. */
  readonly check: string;
  /** A sentence with the numbers and the fix, for the CLI and the inspector. */
  readonly message: string;
  /** What was found, as plain JSON (e.g. where the volatile bytes are). */
  readonly details?: Readonly<Record<string, unknown>>;
};

/**
 * The cost of one tool definition: its JSON counted alone (the rows add up to about `toolTokens`,
 * give or take the list's brackets and commas). A deferred tool (`BuildInput.deferredTools`) is not
 * sent: its row says what it would cost if it were.
 */
export type ToolTokens = {
  readonly name: string;
  readonly tokens: number;
  readonly deferred?: true;
};

/** What a build did and why: the input of the CLI grid and the inspector. */
export type BuildTrace = {
  readonly stages: readonly StageTrace[];
  /** Tokens of the final messages, by section, in first-appearance order. */
  readonly sections: readonly SectionTokens[];
  /** Tokens of the tool definitions sent with the request. */
  readonly toolTokens: number;
  /**
   * Tokens of each tool definition, the sent ones in request order, then the deferred ones; absent
   * when the build had no tools.
   */
  readonly tools?: readonly ToolTokens[];
  /** Tokens of the final messages plus the tool definitions. */
  readonly totalTokens: number;
  /** The counter used. */
  readonly tokenCounter: string;
  /** Whether its numbers are the model tokenizer's (`'exact'`) or an `'estimate'` (a counter without `kind`). */
  readonly tokenCounterKind?: TokenCountKind;
  readonly durationMs: number;
  /** What the pipeline (`context-loss`) and its `checks` found; absent when nothing was found. */
  readonly warnings?: readonly TraceWarning[];
};

/** The result of `build` and `transform`. */
export type BuildResult = {
  readonly messages: readonly Message[];
  readonly trace: BuildTrace;
};

/** Every decision of a trace, in stage order. */
export function traceDecisions(trace: BuildTrace): readonly Decision[] {
  return trace.stages.flatMap((stage) => stage.decisions);
}
