import { createHash } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { codePointLength, sliceCodePoints } from '../core/code-points.js';
import type { Content } from '../core/message.js';
import { syncDirectory, writeSyncedTemp } from './atomic-write.js';
import { hasErrorCode, isMissingFileError } from './fs-helpers.js';
import { injectiveFileName, nanobotFileName, resolveInside } from './safe-path.js';

/** Characters a tool result may have before it is offloaded (nanobot's `max_tool_result_chars`). */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 16_000;

/** Characters of the original shown in an offload reference. */
export const DEFAULT_OFFLOAD_PREVIEW_CHARS = 1_200;

/** The folder, relative to the workspace, that holds offloaded tool results. */
export const TOOL_RESULTS_DIR = path.join('.ctxloom', 'tool-results');

/** First line of every offload reference (how the governor recognises its own references). */
export const OFFLOAD_REFERENCE_HEADER = '[tool output persisted]';

/** Options for {@link persistToolResult}. */
export type PersistToolResultOptions = {
  /** The workspace root; results go to `<workspace>/.ctxloom/tool-results/<session>/`. */
  readonly workspace: string;
  /** The session key, made safe as a folder name. @default 'default' */
  readonly sessionKey?: string;
  /** The tool call id, made safe as the file name. */
  readonly toolCallId: string;
  /** The tool result. */
  readonly content: Content;
  /** Results up to this many characters stay inline (no file). @default 16000 */
  readonly maxChars?: number;
  /** Characters of the original shown in the reference. @default 1200 */
  readonly previewChars?: number;
  /** Sibling session buckets older than this (by mtime) are deleted. @default 7 days */
  readonly maxBucketAgeMs?: number;
  /** Buckets kept, the current one included, newest first. @default 32 */
  readonly maxBuckets?: number;
  /** The current time, for bucket retention. @default () => new Date() */
  readonly clock?: () => Date;
  /**
   * Compute the reference (the same bytes a real run sends) without writing or deleting anything,
   * for read-only tools such as the inspector. @default false
   */
  readonly dryRun?: boolean;
};

/** What {@link persistToolResult} did. */
export type PersistToolResultOutcome =
  | { readonly status: 'inline'; readonly reason: string }
  | {
      readonly status: 'persisted';
      /** The text that replaces the result in the model's context. */
      readonly reference: string;
      /** Absolute path of the file holding the full result. */
      readonly path: string;
      /** Characters of the original payload. */
      readonly originalChars: number;
      /** False when the file already existed (an earlier run wrote it). */
      readonly created: boolean;
      /** Buckets removed by retention. */
      readonly removedBuckets: readonly string[];
      /** Retention errors (recorded, never thrown). */
      readonly cleanupErrors: readonly string[];
    };

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where an offload may go: the file and the reference text that points at it. */
export type OffloadTarget = {
  /** Absolute path of the file. */
  readonly path: string;
  /** The text that replaces the result in the model's context. */
  readonly reference: string;
};

/**
 * An offload decided but not yet written. `path` and `reference` are nanobot's own name
 * (`<session>/<call id>.txt`), used unless that file already holds other bytes (a provider that
 * reused the call id); then the bytes go to `alternate`, whose name carries their digest.
 */
export type PlannedToolResultOffload = OffloadTarget & {
  /** The session folder (absolute). */
  readonly bucket: string;
  /** The session folder's name under the tool-results root. */
  readonly bucketName: string;
  /** The tool-results root (absolute). */
  readonly root: string;
  /** `<call id>.<digest>.txt`: a name for these bytes only, used when nanobot's name holds others. */
  readonly alternate: OffloadTarget;
  /** The file's contents. */
  readonly stored: string;
  /** Characters of the original payload. */
  readonly originalChars: number;
};

/**
 * Decides, without touching the disk, whether a tool result is offloaded and where. The file is
 * nanobot's `<workspace>/.ctxloom/tool-results/<session>/<call id>.txt` (`.json` for a list of text
 * parts), both names as nanobot makes them safe (`nanobotFileName`), unless that file turns out to
 * hold other bytes when it is written: then `<call id>.<digest>.txt`, where `<digest>` is 16 hex
 * digits of the SHA-256 of the stored bytes and the names are injective (`injectiveFileName`). So a
 * reference always points at its own bytes, and the same result always gets the byte-identical
 * reference (prompt caches stay warm).
 */
export function planToolResultOffload(
  options: Omit<PersistToolResultOptions, 'maxBucketAgeMs' | 'maxBuckets' | 'clock' | 'dryRun'>,
): PlannedToolResultOffload | { readonly status: 'inline'; readonly reason: string } {
  const maxChars = options.maxChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
  if (maxChars <= 0) return { status: 'inline', reason: 'maxChars ≤ 0 turns offloading off' };
  const payload = offloadPayload(options.content);
  if (payload === undefined) return { status: 'inline', reason: 'content has non-text parts' };
  const originalChars = codePointLength(payload.text);
  if (originalChars <= maxChars) return { status: 'inline', reason: 'fits maxChars' };
  const root = resolveInside(options.workspace, TOOL_RESULTS_DIR);
  const bucketName = nanobotFileName(options.sessionKey ?? 'default');
  const bucket = resolveInside(root, bucketName);
  const previewChars = options.previewChars ?? DEFAULT_OFFLOAD_PREVIEW_CHARS;
  const target = (name: string): OffloadTarget => {
    const file = resolveInside(bucket, name);
    return { path: file, reference: offloadReference({ path: file, text: payload.text, previewChars }) };
  };
  const digest = createHash('sha256').update(payload.stored, 'utf8').digest('hex').slice(0, 16);
  return {
    ...target(`${nanobotFileName(options.toolCallId)}.${payload.extension}`),
    alternate: target(`${injectiveFileName(options.toolCallId)}.${digest}.${payload.extension}`),
    bucket,
    bucketName,
    root,
    stored: payload.stored,
    originalChars,
  };
}

/** What {@link ToolResultOffloadWriter.write} did for one planned offload, and where its bytes are. */
export type OffloadWriteOutcome =
  | ({ readonly ok: true; readonly created: boolean } & OffloadTarget)
  | { readonly ok: false; readonly error: string };

/** Files written at the same time by {@link ToolResultOffloadWriter.write}. */
const WRITE_CONCURRENCY = 16;

/** One planned offload of a batch, and what the batch found or wrote for it. */
type Job = {
  readonly index: number;
  readonly plan: PlannedToolResultOffload;
  /** nanobot's name is taken by other bytes (on disk or by an earlier job of the batch): use the alternate. */
  alternate: boolean;
  /** A synced temp file waiting to be linked into place. */
  temp?: string;
};

/** The bytes an earlier job of the batch will link under nanobot's name (not on disk yet). */
type Claim = { bytes: string | undefined };

/** One call of {@link ToolResultOffloadWriter.write}: its jobs and the outcomes they fill in. */
type Batch = {
  readonly jobs: readonly Job[];
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
 * With `dryRun` it only reads: each outcome is where a real write would put the bytes.
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
    const jobs: Job[] = [];
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
    await forEachLimited([...groupByName(batch.jobs).values()], WRITE_CONCURRENCY, async (group) => {
      const claimed: Claim = { bytes: undefined };
      for (const job of group) {
        const folderError = folderErrors.get(job.plan.bucket);
        if (folderError === undefined) await this.#stage(job, { batch, claimed });
        else batch.outcomes[job.index] = { ok: false, error: folderError };
      }
    });
    const moved = new Map<string, Job[]>();
    for (const job of batch.jobs) {
      if (job.temp === undefined) continue;
      try {
        if (await moveIntoPlace(job, job.temp))
          moved.set(job.plan.bucket, [...(moved.get(job.plan.bucket) ?? []), job]);
        else batch.outcomes[job.index] = this.#found(job, target(job));
      } catch (error) {
        await unlink(job.temp).catch(() => undefined);
        batch.outcomes[job.index] = { ok: false, error: describe(error) };
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
    job: Job,
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
      if (batch.dryRun) batch.outcomes[job.index] = { ok: true, created: false, ...target(job) };
      else
        job.temp = await writeSyncedTemp(job.plan.alternate.path, { content: job.plan.stored, mode: 0o644 });
      // Claimed only once staged: a job that failed leaves the name to the next one, as a later run would.
      if (atName === 'missing') claimed.bytes = job.plan.stored;
    } catch (error) {
      batch.outcomes[job.index] = { ok: false, error: describe(error) };
    }
  }

  /** Makes the moves into `bucket` durable; only then are its files reported written. */
  async #syncFolder(
    bucket: string,
    { done, outcomes }: { readonly done: readonly Job[]; readonly outcomes: OffloadWriteOutcome[] },
  ): Promise<void> {
    let error: string | undefined;
    try {
      await syncDirectory(bucket);
    } catch (cause) {
      error = describe(cause);
    }
    for (const job of done) {
      if (error === undefined) {
        this.#files.set(target(job).path, job.plan.alternate.path);
        outcomes[job.index] = { ok: true, created: true, ...target(job) };
      } else outcomes[job.index] = { ok: false, error };
    }
  }

  /** Records bytes found on disk under `where` (nothing was written for them). */
  #found(job: Job, where: OffloadTarget): OffloadWriteOutcome {
    this.#files.set(where.path, job.plan.alternate.path);
    return { ok: true, created: false, path: where.path, reference: where.reference };
  }

  async #makeFolders(jobs: readonly Job[]): Promise<Map<string, string>> {
    const errors = new Map<string, string>();
    for (const bucket of new Set(jobs.map(({ plan }) => plan.bucket))) {
      if (this.#folders.has(bucket)) continue;
      try {
        await mkdir(bucket, { recursive: true });
        this.#folders.add(bucket);
      } catch (error) {
        errors.set(bucket, describe(error));
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

/**
 * Writes an oversized tool result to `<workspace>/.ctxloom/tool-results/<session>/<call id>.txt`
 * (`.json` for a list of text parts, stored pretty-printed), nanobot's name, or to
 * `<call id>.<digest>.txt` when that name already holds other bytes (see `planToolResultOffload`),
 * and returns nanobot's reference text with a preview. The file is complete on disk before this
 * resolves (temp file, sync, link or rename, folder sync); an existing file with these bytes is
 * reused, so a second call returns the byte-identical reference. Names are resolved with
 * `resolveInside`, so a hostile id such as `../../x` stays inside the tool-results folder, and a
 * reference never points at bytes other than its own. Each offload that writes a new file also
 * applies bucket retention to sibling session folders; retention errors are recorded in the
 * outcome, never thrown. With `dryRun` nothing is written and the outcome is what a real run would
 * send.
 *
 * Results with images or other non-text parts, and results within `maxChars`, stay inline.
 * @throws when the file cannot be written (the caller falls back to truncation).
 */
export async function persistToolResult(
  options: PersistToolResultOptions,
): Promise<PersistToolResultOutcome> {
  const plan = planToolResultOffload(options);
  if ('status' in plan) return plan;
  const writer = new ToolResultOffloadWriter();
  const dryRun = options.dryRun === true;
  const [outcome] = await writer.write([plan], { dryRun });
  if (outcome === undefined || !outcome.ok) throw new Error(outcome?.error ?? 'offload write failed');
  const retention =
    outcome.created && !dryRun
      ? await writer.applyRetention({
          root: plan.root,
          current: plan.bucketName,
          ...(options.maxBucketAgeMs === undefined ? {} : { maxAgeMs: options.maxBucketAgeMs }),
          ...(options.maxBuckets === undefined ? {} : { maxBuckets: options.maxBuckets }),
          now: (options.clock ?? (() => new Date()))().getTime(),
        })
      : { removedBuckets: [], cleanupErrors: [] };
  return {
    status: 'persisted',
    reference: outcome.reference,
    path: outcome.path,
    originalChars: plan.originalChars,
    created: outcome.created,
    ...retention,
  };
}

/** nanobot's reference text for an offloaded result. */
export function offloadReference(options: {
  readonly path: string;
  readonly text: string;
  readonly previewChars: number;
}): string {
  // Sizes and the preview in code points, as nanobot measures them (an emoji is one character).
  const size = codePointLength(options.text);
  const preview = sliceCodePoints(options.text, options.previewChars);
  const tail = size > options.previewChars ? '\n...\n(Read the saved file if you need the full output.)' : '';
  return (
    `${OFFLOAD_REFERENCE_HEADER}\nFull output saved to: ${options.path}\n` +
    `Original size: ${size} chars\nPreview:\n${preview}${tail}`
  );
}

type Payload = { readonly text: string; readonly stored: string; readonly extension: 'txt' | 'json' };

function offloadPayload(content: Content): Payload | undefined {
  if (typeof content === 'string') return { text: content, stored: content, extension: 'txt' };
  if (!content.every((part) => part.type === 'text')) return undefined;
  const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { text, stored: JSON.stringify(content, null, 2), extension: 'json' };
}

type Bucket = { readonly name: string; readonly mtimeMs: number };

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function listSiblingBuckets(
  root: string,
  options: { readonly current: string; readonly errors: string[] },
): Promise<readonly Bucket[]> {
  const siblings: Bucket[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === options.current) continue;
    try {
      siblings.push({ name: entry.name, mtimeMs: (await stat(path.join(root, entry.name))).mtimeMs });
    } catch (error) {
      options.errors.push(`${entry.name}: ${describe(error)}`);
    }
  }
  return siblings;
}

async function applyBucketRetention(options: {
  readonly root: string;
  readonly current: string;
  readonly maxAgeMs: number;
  readonly maxBuckets: number;
  readonly now: number;
}): Promise<{ readonly removedBuckets: readonly string[]; readonly cleanupErrors: readonly string[] }> {
  const removedBuckets: string[] = [];
  const cleanupErrors: string[] = [];
  const remove = async (name: string): Promise<void> => {
    try {
      await rm(resolveInside(options.root, name), { recursive: true, force: true });
      removedBuckets.push(name);
    } catch (error) {
      cleanupErrors.push(`${name}: ${describe(error)}`);
    }
  };
  let siblings: readonly Bucket[];
  try {
    siblings = await listSiblingBuckets(options.root, { current: options.current, errors: cleanupErrors });
  } catch (error) {
    return { removedBuckets, cleanupErrors: [describe(error)] };
  }
  const fresh: Bucket[] = [];
  for (const sibling of siblings) {
    if (options.now - sibling.mtimeMs > options.maxAgeMs) await remove(sibling.name);
    else fresh.push(sibling);
  }
  fresh.sort((a, b) => b.mtimeMs - a.mtimeMs || a.name.localeCompare(b.name));
  for (const sibling of fresh.slice(Math.max(0, options.maxBuckets - 1))) await remove(sibling.name);
  return { removedBuckets, cleanupErrors };
}

/** The target a job's bytes go to: nanobot's name, or the alternate when that name holds other bytes. */
function target(job: Job): OffloadTarget {
  const where = job.alternate ? job.plan.alternate : job.plan;
  return { path: where.path, reference: where.reference };
}

/** Whether `file` holds exactly `stored`, other bytes, or is missing (compared byte for byte). */
async function holdsBytes(file: string, stored: string): Promise<'same' | 'other' | 'missing'> {
  try {
    if ((await stat(file)).size !== Buffer.byteLength(stored, 'utf8')) return 'other';
    return (await readFile(file, 'utf8')) === stored ? 'same' : 'other';
  } catch (error) {
    if (isMissingFileError(error)) return 'missing';
    throw error;
  }
}

/**
 * Why a result whose alternate name holds other bytes is not offloaded. nanobot's names overlap the
 * alternates' (call id `c.<16 hex>` is named `c.<16 hex>.txt`), so that file may be another result's,
 * and replacing it would change what that result's reference points at.
 */
function alternateTakenMessage(plan: PlannedToolResultOffload): string {
  return (
    `Cannot offload to ${plan.alternate.path}: ${path.basename(plan.path)} and that file both hold other ` +
    'bytes (another result, e.g. of a call id ending in the same digest), and neither is replaced; ' +
    'the result is kept inline (truncated). Use another session key or remove the stale files.'
  );
}

/** The jobs of a batch by nanobot's name, each list in batch order. */
function groupByName(jobs: readonly Job[]): Map<string, Job[]> {
  const groups = new Map<string, Job[]>();
  for (const job of jobs) {
    const group = groups.get(job.plan.path);
    if (group === undefined) groups.set(job.plan.path, [job]);
    else group.push(job);
  }
  return groups;
}

/**
 * Moves a synced temp file to its target without replacing anything; false when the target turned
 * out to hold the same bytes already (written meanwhile by another process or an earlier job). Other
 * bytes under nanobot's name send these to the alternate; other bytes under the alternate throw
 * (see `alternateTakenMessage`).
 */
async function moveIntoPlace(job: Job, temp: string): Promise<boolean> {
  if (!job.alternate) {
    if (await linkNew(temp, job.plan.path)) return true;
    if ((await holdsBytes(job.plan.path, job.plan.stored)) === 'same') {
      await unlink(temp);
      return false;
    }
    job.alternate = true;
  }
  if (await linkNew(temp, job.plan.alternate.path)) return true;
  if ((await holdsBytes(job.plan.alternate.path, job.plan.stored)) !== 'same')
    throw new Error(alternateTakenMessage(job.plan));
  await unlink(temp);
  return false;
}

/** Error codes of file systems without hard links. */
const NO_HARD_LINKS = ['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP'];

/**
 * Gives `temp` the name `file` with a hard link, which fails instead of replacing a file that
 * appeared since it was checked: false when `file` exists. File systems without hard links fall back
 * to a rename.
 */
async function linkNew(temp: string, file: string): Promise<boolean> {
  try {
    await link(temp, file);
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    if (!NO_HARD_LINKS.some((code) => hasErrorCode(error, code))) throw error;
    await rename(temp, file);
    return true;
  }
  await unlink(temp);
  return true;
}

async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T; // next < length
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
