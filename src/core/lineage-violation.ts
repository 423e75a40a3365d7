/**
 * One way a list of compaction records does not fit its history, discriminated on `type`:
 * - `duplicate-record-id`: two records, or a record and a message, share an id;
 * - `empty-run`: a record replaces nothing;
 * - `unknown-id`: a record names an id that is neither a message nor an earlier record;
 * - `covered-twice`: a record names an id an earlier record already replaced (or one it names twice);
 * - `not-contiguous`: the run is not one contiguous, ordered stretch of the view it was made from;
 * - `split-transaction`: the run takes part of a tool transaction (a call without all its results,
 *   or results without their call);
 * - `pinned-in-replaces`: an id is both pinned and replaced;
 * - `bad-lineage`: `parents` or `depth` do not match what `replaces` names.
 */
export type LineageViolation = {
  readonly type:
    | 'duplicate-record-id'
    | 'empty-run'
    | 'unknown-id'
    | 'covered-twice'
    | 'not-contiguous'
    | 'split-transaction'
    | 'pinned-in-replaces'
    | 'bad-lineage';
  /** The record concerned. */
  readonly recordId: string;
  /** Its position among the records. */
  readonly recordIndex: number;
  /** The message or record ids concerned. */
  readonly ids: readonly string[];
  /** A sentence a person can read. */
  readonly message: string;
};
