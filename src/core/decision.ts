/**
 * A record of one change a stage made to the context, with the reason. Expected outcomes (a message
 * dropped, a result offloaded) are decisions, never exceptions. Discriminated on `type`.
 *
 * - `message-drop`: a message was removed (`messageIds`).
 * - `message-truncate`: a message's content was shortened.
 * - `message-rewrite`: a message's content or fields were replaced (annotation, normalisation).
 * - `message-merge`: neighbouring messages were merged into one.
 * - `message-insert`: a synthetic message was added.
 * - `tool-result-offload`: a tool result was written to a file and replaced by a reference.
 * - `tool-result-compact`: a tool result was replaced by the compaction notice.
 * - `tool-result-backfill`: a missing tool result was filled in.
 * - `tool-call-repair`: a tool call was removed or its id filled in.
 * - `section-skip`: a provider contributed nothing, or part of its input was skipped.
 * - `history-compaction`: automatic compaction replaced a run of the history by a summary (the record's
 *   id in `details.recordId`), or tried, planned or refused to and says why (`details.outcome`).
 */
export type Decision = {
  readonly type:
    | 'message-drop'
    | 'message-truncate'
    | 'message-rewrite'
    | 'message-merge'
    | 'message-insert'
    | 'tool-result-offload'
    | 'tool-result-compact'
    | 'tool-result-backfill'
    | 'tool-call-repair'
    | 'section-skip'
    | 'history-compaction';
  /** The id of the stage that made the decision. */
  readonly stage: string;
  /** Why, in one sentence a person can read. */
  readonly reason: string;
  /** The ids of the messages concerned (empty when {@link Decision.messageRange} names them). */
  readonly messageIds: readonly string[];
  /**
   * A run of consecutive messages concerned, by its first and last id and its length: how a drop of
   * many old messages is recorded without listing every id.
   */
  readonly messageRange?: MessageRange;
  /** Token count before the change, when known. */
  readonly tokensBefore?: number;
  /** Token count after the change, when known. */
  readonly tokensAfter?: number;
  /** Extra structured data (paths, tool call ids, sizes). */
  readonly details?: Readonly<Record<string, unknown>>;
};

/** A run of consecutive messages of the list a stage was given. */
export type MessageRange = {
  readonly firstId: string;
  readonly lastId: string;
  readonly count: number;
};

/** Convenience constructor for a {@link Decision}. */
export function decision(type: Decision['type'], fields: Omit<Decision, 'type'>): Decision {
  return { type, ...fields };
}
