import type { ChatModelError } from '../llm/chat-model-error.js';

/** What one archive step did with its messages. */
export type ArchiveOutcome =
  | { readonly kind: 'summary'; readonly text: string }
  | { readonly kind: 'nothing' }
  /**
   * Archived raw (nanobot's fallback): `failure` is set when the model failed transiently (or an
   * unusable reply with `unusableReply: 'raw-archive'`); without it, one request could not hold the
   * turn.
   */
  | {
      readonly kind: 'raw';
      readonly reason: string;
      readonly entries: number;
      readonly failure?: ChatModelError;
    };

/** One archive step: `messages[start:end]` were archived, and the pointer moved to `end`. */
export type ConsolidationRound = {
  readonly start: number;
  readonly end: number;
  readonly outcome: ArchiveOutcome;
};

/** The result of {@link MemoryConsolidator.maybeConsolidate}. */
export type ConsolidationResult = {
  /**
   * `degraded`: the model failed transiently, so the last round was raw-archived and the call stopped
   * (the rest waits for the next call).
   */
  readonly status: 'disabled' | 'empty' | 'under-budget' | 'consolidated' | 'no-boundary' | 'degraded';
  readonly budget: number;
  readonly target: number;
  readonly estimateBefore: number;
  readonly estimateAfter: number;
  readonly rounds: readonly ConsolidationRound[];
};

/** The result of {@link MemoryConsolidator.archiveTail}. */
export type TailArchiveResult = {
  /** `empty`: nothing unarchived; `degraded`: a transient failure raw-archived a chunk and stopped. */
  readonly status: 'empty' | 'archived' | 'degraded';
  readonly rounds: readonly ConsolidationRound[];
};

/** True when the round was raw-archived because the model failed: the call stops there. */
export function isDegraded(round: ConsolidationRound): boolean {
  return round.outcome.kind === 'raw' && round.outcome.failure !== undefined;
}

/** The round's outcome in a progress line. */
export function describeArchiveOutcome(outcome: ArchiveOutcome): string {
  if (outcome.kind !== 'raw') return outcome.kind;
  const entries = `${outcome.entries} raw entr${outcome.entries === 1 ? 'y' : 'ies'}`;
  return outcome.failure === undefined ? `${entries}: ${outcome.reason}` : `${entries}, model unavailable`;
}
