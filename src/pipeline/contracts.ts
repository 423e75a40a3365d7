import type { Decision } from '../core/decision.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { BuildInput } from './build-input.js';

/** What a stage does when it throws: record the error in the trace and go on, or fail the build. */
export type StageErrorPolicy = 'skip' | 'throw';

/** What every stage receives besides the input: the injected pieces of the run. */
export type BuildContext = {
  /** The builder's counter (cached). */
  readonly tokenCounter: TokenCounter;
  /** Milliseconds from an arbitrary origin, for stage timings. */
  readonly now: () => number;
  /** Makes ids for new messages. */
  readonly generateId: IdGenerator;
  /** True in debug mode: integrity is checked after every filter. */
  readonly debug: boolean;
  /** Cancels the build. */
  readonly signal?: AbortSignal;
  /**
   * How `input.history` relates to the history of the pipeline's previous build, as its input check
   * found it: that history (the array) and how many of its leading messages this one shares with it
   * by identity (0 when it did not only grow), so a provider that keeps state about the history need
   * not compare it again. Absent when unknown (e.g. in `transform`).
   */
  readonly historyGrowth?: { readonly previous: readonly Message[]; readonly shared: number };
  /**
   * True when a filter of the pipeline decides from the whole history (`ContextFilter.readsWholeHistory`),
   * so a history provider must not leave out old messages it expects the budget steps to drop.
   */
  readonly wholeHistory?: boolean;
  /**
   * One result per build for `key`: the first call computes it, later calls in the same build get
   * it back (e.g. the skills catalogue, listed once for the three providers that read it). Absent in
   * a context made by hand; call `compute` then.
   */
  readonly perBuild?: <TValue>(key: object, compute: () => TValue) => TValue;
};

/**
 * Contributes a block of messages to the context. The builder tags each message with the provider's
 * `id` as its section (`metadata.section`) unless the provider set one.
 */
export interface MessageProvider {
  readonly specificationVersion?: 'v1';
  /** Stable kebab-case id; it appears in traces, configs and the CLI. */
  readonly id: string;
  /** @default 'skip' (the error is recorded in the trace and the provider contributes nothing) */
  readonly onError?: StageErrorPolicy;
  /**
   * Returns the block of messages; or `{ messages, decisions }` to explain what it left out or cut
   * (a skipped file, a truncated section), which the trace records for this stage.
   */
  getMessages(
    input: BuildInput,
    context: BuildContext,
  ): readonly Message[] | ProviderResult | Promise<readonly Message[] | ProviderResult>;
}

/** A provider's block with the decisions that explain it. */
export type ProviderResult = {
  readonly messages: readonly Message[];
  readonly decisions: readonly Decision[];
};

/** What a filter returns: the new list (the input list itself when nothing changed) and why. */
export type FilterResult = {
  readonly messages: readonly Message[];
  readonly decisions: readonly Decision[];
};

/**
 * Post-processes the aggregated messages (trim, enrich, clean). Never mutates its input; returns the
 * same array when it changes nothing; explains every change with a {@link Decision}.
 */
export interface ContextFilter {
  readonly specificationVersion?: 'v1';
  /** Stable kebab-case id. */
  readonly id: string;
  /** @default 'throw' (filters guard correctness); enrichment filters declare 'skip' */
  readonly onError?: StageErrorPolicy;
  /**
   * True when the filter's decision depends on the oldest messages too (e.g. a cache-aware trim that
   * walks the history from its start): history providers then emit the whole history. @default false
   */
  readonly readsWholeHistory?: boolean;
  apply(
    messages: readonly Message[],
    input: BuildInput,
    context: BuildContext,
  ): FilterResult | Promise<FilterResult>;
}
