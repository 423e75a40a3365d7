import type { BuildInput } from '../pipeline/build-input.js';

/** The `BuildInput.state` key under which the governor passes its per-call options to its steps. */
export const GOVERNOR_STATE_KEY = 'ctxloom.governor';

/**
 * Per-call state of the governor's steps, carried in `BuildInput.state[GOVERNOR_STATE_KEY]`.
 * `compactedToolCallIds` is owned by the caller and kept across the steps of one tool loop: the
 * compaction step adds ids to it and re-applies them on every later call.
 */
export type GovernorRunState = {
  /**
   * Index of the first message produced during this run (results before it are history).
   * @default the list's length: nothing is in flight (a build at the start of a turn)
   */
  readonly inflightStartIndex?: number;
  /** Ids of the messages produced during this run; when given, it replaces the index test. */
  readonly inflightMessageIds?: ReadonlySet<string>;
  /** Tool call ids compacted so far in this run (mutated: ids are added). */
  readonly compactedToolCallIds?: Set<string>;
};

/** Reads the governor state of a build input (an empty state when absent or malformed). */
export function governorRunState(input: BuildInput): GovernorRunState {
  const value = input.state?.[GOVERNOR_STATE_KEY];
  if (typeof value !== 'object' || value === null) return {};
  // The key is ours: only the governor and createPrepareStep write it, always with this shape.
  return value as GovernorRunState;
}

/** Returns `input` with the governor state set (the input object is not changed). */
export function withGovernorRunState(input: BuildInput, state: GovernorRunState): BuildInput {
  return { ...input, state: { ...input.state, [GOVERNOR_STATE_KEY]: state } };
}
