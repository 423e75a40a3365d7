import path from 'node:path';
import type { OffloadTarget, PlannedToolResultOffload } from './plan-tool-result-offload.js';

/** One planned offload of a batch, and what the batch found or wrote for it. */
export type OffloadJob = {
  readonly index: number;
  readonly plan: PlannedToolResultOffload;
  /** nanobot's name is taken by other bytes (on disk or by an earlier job of the batch): use the alternate. */
  alternate: boolean;
  /** A synced temp file waiting to be linked into place. */
  temp?: string;
};

/** The target a job's bytes go to: nanobot's name, or the alternate when that name holds other bytes. */
export function jobTarget(job: OffloadJob): OffloadTarget {
  const where = job.alternate ? job.plan.alternate : job.plan;
  return { path: where.path, reference: where.reference };
}

/**
 * Why a result whose alternate name holds other bytes is not offloaded. nanobot's names overlap the
 * alternates' (call id `c.<16 hex>` is named `c.<16 hex>.txt`), so that file may be another result's,
 * and replacing it would change what that result's reference points at.
 */
export function alternateTakenMessage(plan: PlannedToolResultOffload): string {
  return (
    `Cannot offload to ${plan.alternate.path}: ${path.basename(plan.path)} and that file both hold other ` +
    'bytes (another result, e.g. of a call id ending in the same digest), and neither is replaced; ' +
    'the result is kept inline (truncated). Use another session key or remove the stale files.'
  );
}
