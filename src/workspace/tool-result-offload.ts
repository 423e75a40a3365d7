import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { codePointLength, sliceCodePoints } from '../core/code-points.js';
import type { Content } from '../core/message.js';
import { syncDirectory } from './atomic-write.js';
import { isMissingFileError } from './fs-helpers.js';
import { injectiveFileName, resolveInside } from './safe-path.js';

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

/** An offload decided but not yet written: where the bytes go and the reference that points at them. */
export type PlannedToolResultOffload = {
  /** The session folder (absolute). */
  readonly bucket: string;
  /** The session folder's name under the tool-results root. */
  readonly bucketName: string;
  /** The tool-results root (absolute). */
  readonly root: string;
  /** Absolute path of the file; its name carries a digest of `stored`, so it names these bytes only. */
  readonly path: string;
  /** The file's contents. */
  readonly stored: string;
  /** The text that replaces the result in the model's context. */
  readonly reference: string;
  /** Characters of the original payload. */
  readonly originalChars: number;
};

/**
 * Decides, without touching the disk, whether a tool result is offloaded and where: the file is
 * `<workspace>/.ctxloom/tool-results/<session>/<call id>.<digest>.txt` (`.json` for a list of text
 * parts), where both names go through `injectiveFileName` and `<digest>` is 16 hex digits of the
 * SHA-256 of the stored bytes. The path is therefore a function of the session, the call id and the
 * content: a provider that reuses a call id with other output gets another file, and the same result
 * always gets the byte-identical reference (prompt caches stay warm).
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
  const bucketName = injectiveFileName(options.sessionKey ?? 'default');
  const bucket = resolveInside(root, bucketName);
  const digest = createHash('sha256').update(payload.stored, 'utf8').digest('hex').slice(0, 16);
  const target = resolveInside(
    bucket,
    `${injectiveFileName(options.toolCallId)}.${digest}.${payload.extension}`,
  );
  return {
    bucket,
    bucketName,
    root,
    path: target,
    stored: payload.stored,
    reference: offloadReference({
      path: target,
      text: payload.text,
      previewChars: options.previewChars ?? DEFAULT_OFFLOAD_PREVIEW_CHARS,
    }),
    originalChars,
  };
}

/** What {@link ToolResultOffloadWriter.write} did for one planned offload. */
export type OffloadWriteOutcome =
  | { readonly ok: true; readonly created: boolean }
  | { readonly ok: false; readonly error: string };

/** Files written at the same time by {@link ToolResultOffloadWriter.write}. */
const WRITE_CONCURRENCY = 16;

/**
 * Writes planned offloads in batches and remembers what it wrote. For one batch it creates each
 * session folder once, writes every new file to a temp name, syncs the files concurrently, renames
 * them into place and then syncs each folder once (instead of a file sync plus a folder sync per
 * file).
 *
 * Durability: when `write` resolves, every file it reports `ok` is complete on disk under its final
 * name (its bytes were synced before the rename, and the rename was made durable by the folder sync),
 * so a reference may be sent; a crash before that leaves at most temp files, never a torn file under a
 * referenced name. Folders and files it has seen are remembered, so later batches do no `mkdir` or
 * `stat` for them; bucket retention run through this writer forgets the folders it removes. A file
 * found on disk under the planned name is kept when its size matches the planned bytes (the name
 * carries their digest) and replaced otherwise.
 */
export class ToolResultOffloadWriter {
  readonly #folders = new Set<string>();
  readonly #files = new Set<string>();

  /** Writes the planned files that are not on disk yet; failures are reported per file, never thrown. */
  async write(plans: readonly PlannedToolResultOffload[]): Promise<readonly OffloadWriteOutcome[]> {
    const outcomes: OffloadWriteOutcome[] = new Array(plans.length);
    const pending: { readonly index: number; readonly plan: PlannedToolResultOffload }[] = [];
    const claimed = new Set<string>();
    for (const [index, plan] of plans.entries()) {
      if (this.#files.has(plan.path) || claimed.has(plan.path))
        outcomes[index] = { ok: true, created: false };
      else {
        claimed.add(plan.path);
        pending.push({ index, plan });
      }
    }
    if (pending.length === 0) return outcomes;
    const folderErrors = new Map<string, string>();
    for (const bucket of new Set(pending.map(({ plan }) => plan.bucket))) {
      if (this.#folders.has(bucket)) continue;
      try {
        await mkdir(bucket, { recursive: true });
        this.#folders.add(bucket);
      } catch (error) {
        folderErrors.set(bucket, describe(error));
      }
    }
    const written = new Map<number, string>();
    await forEachLimited(pending, WRITE_CONCURRENCY, async ({ index, plan }) => {
      const folderError = folderErrors.get(plan.bucket);
      if (folderError !== undefined) {
        outcomes[index] = { ok: false, error: folderError };
        return;
      }
      try {
        if (await hasExpectedSize(plan)) {
          this.#files.add(plan.path);
          outcomes[index] = { ok: true, created: false };
          return;
        }
        written.set(index, await writeSyncedTemp(plan));
      } catch (error) {
        outcomes[index] = { ok: false, error: describe(error) };
      }
    });
    const renamed = new Map<string, number[]>();
    for (const { index, plan } of pending) {
      const temp = written.get(index);
      if (temp === undefined) continue;
      try {
        await rename(temp, plan.path);
        renamed.set(plan.bucket, [...(renamed.get(plan.bucket) ?? []), index]);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        outcomes[index] = { ok: false, error: describe(error) };
      }
    }
    for (const [bucket, indices] of renamed) {
      let error: string | undefined;
      try {
        await syncDirectory(bucket);
      } catch (cause) {
        error = describe(cause);
      }
      for (const index of indices) {
        const plan = plans[index] as PlannedToolResultOffload; // index came from plans
        if (error === undefined) this.#files.add(plan.path);
        outcomes[index] = error === undefined ? { ok: true, created: true } : { ok: false, error };
      }
    }
    return outcomes;
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
      for (const file of this.#files) if (path.dirname(file) === folder) this.#files.delete(file);
    }
    return outcome;
  }
}

/**
 * Writes an oversized tool result to `<workspace>/.ctxloom/tool-results/<session>/<call id>.<digest>.txt`
 * (`.json` for a list of text parts, stored pretty-printed; see `planToolResultOffload` for the names)
 * and returns nanobot's reference text with a preview. The file is complete on disk before this
 * resolves (temp file, sync, rename, folder sync); an existing file with these bytes is reused, so a
 * second call returns the byte-identical reference. Names are injective (`injectiveFileName`) and
 * resolved with `resolveInside`, so a hostile id such as `../../x` stays inside the tool-results
 * folder and distinct sessions or call ids never share a file. Each offload that writes a new file
 * also applies bucket retention to sibling session folders; retention errors are recorded in the
 * outcome, never thrown.
 *
 * Results with images or other non-text parts, and results within `maxChars`, stay inline.
 * @throws when the file cannot be written (the caller falls back to truncation).
 */
export async function persistToolResult(
  options: PersistToolResultOptions,
): Promise<PersistToolResultOutcome> {
  const plan = planToolResultOffload(options);
  if ('status' in plan) return plan;
  let created = false;
  if (options.dryRun !== true) {
    const writer = new ToolResultOffloadWriter();
    const [outcome] = await writer.write([plan]);
    if (outcome === undefined || !outcome.ok) throw new Error(outcome?.error ?? 'offload write failed');
    created = outcome.created;
    if (created) {
      const retention = await writer.applyRetention({
        root: plan.root,
        current: plan.bucketName,
        ...(options.maxBucketAgeMs === undefined ? {} : { maxAgeMs: options.maxBucketAgeMs }),
        ...(options.maxBuckets === undefined ? {} : { maxBuckets: options.maxBuckets }),
        now: (options.clock ?? (() => new Date()))().getTime(),
      });
      return {
        status: 'persisted',
        reference: plan.reference,
        path: plan.path,
        originalChars: plan.originalChars,
        created,
        ...retention,
      };
    }
  }
  return {
    status: 'persisted',
    reference: plan.reference,
    path: plan.path,
    originalChars: plan.originalChars,
    created,
    removedBuckets: [],
    cleanupErrors: [],
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

async function hasExpectedSize(plan: PlannedToolResultOffload): Promise<boolean> {
  try {
    return (await stat(plan.path)).size === Buffer.byteLength(plan.stored, 'utf8');
  } catch (error) {
    if (isMissingFileError(error)) return false;
    throw error;
  }
}

async function writeSyncedTemp(plan: PlannedToolResultOffload): Promise<string> {
  const temp = path.join(plan.bucket, `.${path.basename(plan.path)}.${randomBytes(8).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(plan.stored);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
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
