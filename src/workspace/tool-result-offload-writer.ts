import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { forEachLimited } from '../core/for-each-limited.js';
import { applyBucketRetention } from './apply-bucket-retention.js';
import { syncDirectory, writeSyncedTemp } from './atomic-write.js';
import { describeError, holdsBytes } from './fs-helpers.js';
import { moveIntoPlace } from './move-into-place.js';
import { alternateTakenMessage, jobTarget, type OffloadJob } from './offload-job.js';
import { dryRunOffloadReference } from './offload-reference.js';
import type { OffloadTarget, PlannedToolResultOffload } from './plan-tool-result-offload.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What {@link ToolResultOffloadWriter.write} did for one planned offload, and where its bytes are. */
export type OffloadWriteOutcome =
  | ({
      readonly ok: true;
      readonly created: boolean;
      /** True in a dry run for a file that is not on disk: the reference says it would be saved. */
      readonly isDryRun?: true;
    } & OffloadTarget)
  | { readonly ok: false; readonly error: string };

/** Files written at the same time by {@link ToolResultOffloadWriter.write}. */
const WRITE_CONCURRENCY = 16;

/** The bytes an earlier job of the batch will link under nanobot's name (not on disk yet). */
type Claim = { bytes: string | undefined };

/** One call of {@link ToolResultOffloadWriter.write}: its jobs and the outcomes they fill in. */
type Batch = {
  readonly jobs: readonly OffloadJob[];
  readonly outcomes: OffloadWriteOutcome[];
  readonly dryRun: boolean;
};

/**
 * Writes planned offloads in batches and remembers what it wrote. A result goes under nanobot's name
 * when that file already holds the same bytes, or is absent and no earlier result of the batch takes
 * it; under its digest-named alternate when the name holds other bytes (a reused call id), so every
 * reference points at its own bytes. Files are compared byte for byte and never replaced: when the
 * alternate holds other bytes too (nanobot's name of a call id such as `c.<16 hex>` is an alternate's
 * name), the outcome is an error and the caller keeps the result inline.
 *
 * For one batch it creates each session folder once, writes every new file to a temp name, syncs the
 * files concurrently, moves them into place with a hard link (so a file another process wrote
 * meanwhile is never replaced) and then syncs each folder once, instead of a file sync plus a folder
 * sync per file.
 *
 * Durability: when `write` resolves, every file it reports `ok` is complete on disk under the name it
 * reports (its bytes were synced before the move, and the move was made durable by the folder sync),
 * so the reference may be sent; a crash before that leaves at most temp files, never a torn file
 * under a referenced name. Folders and files it has seen are remembered, so later batches do no
 * `mkdir` or `stat` for them; bucket retention run through this writer forgets the folders it removes.
 * With `dryRun` it only reads: each outcome is where a real write would put the bytes, and one whose
 * file is not on disk carries `isDryRun` and a reference that says the output would be saved there
 * (never that it was).
 */
export class ToolResultOffloadWriter {
  readonly #folders = new Set<string>();
  /** Files known to hold a plan's bytes: path → the plan's alternate path (which names the bytes). */
  readonly #files = new Map<string, string>();

  /** Writes the planned files that are not on disk yet; failures are reported per file, never thrown. */
  async write(
    plans: readonly PlannedToolResultOffload[],
    options: { readonly dryRun?: boolean } = {},
  ): Promise<readonly OffloadWriteOutcome[]> {
    const dryRun = options.dryRun === true;
    const outcomes: OffloadWriteOutcome[] = new Array(plans.length);
    const jobs: OffloadJob[] = [];
    const repeats: { readonly index: number; readonly first: number }[] = [];
    const firstOfBytes = new Map<string, number>();
    for (const [index, plan] of plans.entries()) {
      const bytes = plan.alternate.path;
      const known = this.#known(plan);
      if (known !== undefined) {
        outcomes[index] = { ok: true, created: false, ...known };
        continue;
      }
      const first = firstOfBytes.get(bytes);
      if (first !== undefined) {
        repeats.push({ index, first });
        continue;
      }
      firstOfBytes.set(bytes, index);
      jobs.push({ index, plan, alternate: false });
    }
    if (jobs.length > 0) await this.#run({ jobs, outcomes, dryRun });
    for (const { index, first } of repeats) {
      const outcome = outcomes[first] as OffloadWriteOutcome; // set by the job of `first`
      outcomes[index] = outcome.ok ? { ...outcome, created: false } : outcome;
    }
    return outcomes;
  }

  /** Where this writer already put (or found) the plan's bytes. */
  #known(plan: PlannedToolResultOffload): OffloadTarget | undefined {
    const bytes = plan.alternate.path;
    if (this.#files.get(plan.path) === bytes) return { path: plan.path, reference: plan.reference };
    if (this.#files.get(bytes) === bytes) return plan.alternate;
    return undefined;
  }

  async #run(batch: Batch): Promise<void> {
    const folderErrors = batch.dryRun ? new Map<string, string>() : await this.#makeFolders(batch.jobs);
    // Jobs that share nanobot's name are staged one after another, in batch order, so each sees
    // whether the file on disk (or an earlier job of the batch) holds its bytes under that name.
    await forEachLimited([...groupByName(batch.jobs).values()], {
      limit: WRITE_CONCURRENCY,
      work: async (group) => {
        const claimed: Claim = { bytes: undefined };
        for (const job of group) {
          const folderError = folderErrors.get(job.plan.bucket);
          if (folderError === undefined) await this.#stage(job, { batch, claimed });
          else batch.outcomes[job.index] = { ok: false, error: folderError };
        }
      },
    });
    const moved = new Map<string, OffloadJob[]>();
    for (const job of batch.jobs) {
      if (job.temp === undefined) continue;
      try {
        if (await moveIntoPlace(job, job.temp))
          moved.set(job.plan.bucket, [...(moved.get(job.plan.bucket) ?? []), job]);
        else batch.outcomes[job.index] = this.#found(job, jobTarget(job));
      } catch (error) {
        await unlink(job.temp).catch(() => undefined);
        batch.outcomes[job.index] = { ok: false, error: describeError(error) };
      }
    }
    for (const [bucket, done] of moved) await this.#syncFolder(bucket, { done, outcomes: batch.outcomes });
  }

  /**
   * Finds the job's bytes on disk, or writes them to a synced temp file (not in a dry run). nanobot's
   * name is used when it holds these bytes, or is free and no earlier job of the batch claimed it for
   * other bytes; otherwise the digest-named alternate, which is never taken from other bytes.
   */
  async #stage(
    job: OffloadJob,
    { batch, claimed }: { readonly batch: Batch; readonly claimed: Claim },
  ): Promise<void> {
    try {
      const atName =
        claimed.bytes === undefined
          ? await holdsBytes(job.plan.path, job.plan.stored)
          : claimed.bytes === job.plan.stored
            ? 'claimed'
            : 'other';
      if (atName === 'same') {
        batch.outcomes[job.index] = this.#found(job, job.plan);
        return;
      }
      job.alternate = atName === 'other';
      if (job.alternate) {
        const atAlternate = await holdsBytes(job.plan.alternate.path, job.plan.stored);
        if (atAlternate === 'same') {
          batch.outcomes[job.index] = this.#found(job, job.plan.alternate);
          return;
        }
        if (atAlternate === 'other') {
          batch.outcomes[job.index] = { ok: false, error: alternateTakenMessage(job.plan) };
          return;
        }
      }
      if (batch.dryRun) batch.outcomes[job.index] = dryRunOutcome(jobTarget(job));
      else
        job.temp = await writeSyncedTemp(job.plan.alternate.path, { content: job.plan.stored, mode: 0o644 });
      // Claimed only once staged: a job that failed leaves the name to the next one, as a later run would.
      if (atName === 'missing') claimed.bytes = job.plan.stored;
    } catch (error) {
      batch.outcomes[job.index] = { ok: false, error: describeError(error) };
    }
  }

  /** Makes the moves into `bucket` durable; only then are its files reported written. */
  async #syncFolder(
    bucket: string,
    { done, outcomes }: { readonly done: readonly OffloadJob[]; readonly outcomes: OffloadWriteOutcome[] },
  ): Promise<void> {
    let error: string | undefined;
    try {
      await syncDirectory(bucket);
    } catch (cause) {
      error = describeError(cause);
    }
    for (const job of done) {
      if (error === undefined) {
        this.#files.set(jobTarget(job).path, job.plan.alternate.path);
        outcomes[job.index] = { ok: true, created: true, ...jobTarget(job) };
      } else outcomes[job.index] = { ok: false, error };
    }
  }

  /** Records bytes found on disk under `where` (nothing was written for them). */
  #found(job: OffloadJob, where: OffloadTarget): OffloadWriteOutcome {
    this.#files.set(where.path, job.plan.alternate.path);
    return { ok: true, created: false, path: where.path, reference: where.reference };
  }

  async #makeFolders(jobs: readonly OffloadJob[]): Promise<Map<string, string>> {
    const errors = new Map<string, string>();
    for (const bucket of new Set(jobs.map(({ plan }) => plan.bucket))) {
      if (this.#folders.has(bucket)) continue;
      try {
        await mkdir(bucket, { recursive: true });
        this.#folders.add(bucket);
      } catch (error) {
        errors.set(bucket, describeError(error));
      }
    }
    return errors;
  }

  /** Applies bucket retention to the siblings of `current` and forgets the folders it removed. */
  async applyRetention(options: {
    readonly root: string;
    readonly current: string;
    readonly maxAgeMs?: number;
    readonly maxBuckets?: number;
    readonly now: number;
  }): Promise<{ readonly removedBuckets: readonly string[]; readonly cleanupErrors: readonly string[] }> {
    const outcome = await applyBucketRetention({
      root: options.root,
      current: options.current,
      maxAgeMs: options.maxAgeMs ?? 7 * DAY_MS,
      maxBuckets: options.maxBuckets ?? 32,
      now: options.now,
    });
    for (const name of outcome.removedBuckets) {
      const folder = path.join(options.root, name);
      this.#folders.delete(folder);
      for (const file of this.#files.keys()) if (path.dirname(file) === folder) this.#files.delete(file);
    }
    return outcome;
  }
}

/** The jobs of a batch by nanobot's name, each list in batch order. */
function groupByName(jobs: readonly OffloadJob[]): Map<string, OffloadJob[]> {
  const groups = new Map<string, OffloadJob[]>();
  for (const job of jobs) {
    const group = groups.get(job.plan.path);
    if (group === undefined) groups.set(job.plan.path, [job]);
    else group.push(job);
  }
  return groups;
}

/** A dry run's outcome for a file it did not write: the reference says it would be saved. */
function dryRunOutcome(target: OffloadTarget): OffloadWriteOutcome {
  return {
    ok: true,
    created: false,
    isDryRun: true,
    path: target.path,
    reference: dryRunOffloadReference(target.reference),
  };
}
