import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { codePointLength, sliceCodePoints } from '../core/code-points.js';
import type { Content } from '../core/message.js';
import { atomicWriteFile } from './atomic-write.js';
import { fileExists } from './fs-helpers.js';
import { resolveInside, safeFileName } from './safe-path.js';

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

/**
 * Writes an oversized tool result to `<workspace>/.ctxloom/tool-results/<session>/<call id>.txt`
 * (`.json` for a list of text parts, stored pretty-printed) and returns nanobot's reference text with
 * a preview. The write is atomic (temp file, fsync, rename, folder fsync) and happens only when the
 * file does not exist yet, so a second call returns the byte-identical reference (prompt caches stay
 * warm). Names are made safe with `safeFileName` and resolved with `resolveInside`, so a hostile id
 * such as `../../x` stays inside the tool-results folder. Each offload also applies bucket retention
 * to sibling session folders (only when it writes a new file, so repeated builds stay cheap); retention errors are recorded in the outcome, never thrown.
 *
 * Results with images or other non-text parts, and results within `maxChars`, stay inline.
 * @throws when the file cannot be written (the caller falls back to truncation).
 */
export async function persistToolResult(
  options: PersistToolResultOptions,
): Promise<PersistToolResultOutcome> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
  if (maxChars <= 0) return { status: 'inline', reason: 'maxChars ≤ 0 turns offloading off' };
  const payload = offloadPayload(options.content);
  if (payload === undefined) return { status: 'inline', reason: 'content has non-text parts' };
  const originalChars = codePointLength(payload.text);
  if (originalChars <= maxChars) return { status: 'inline', reason: 'fits maxChars' };

  const root = resolveInside(options.workspace, TOOL_RESULTS_DIR);
  const bucketName = safeSegment(options.sessionKey ?? 'default');
  const bucket = resolveInside(root, bucketName);
  const target = resolveInside(bucket, `${safeSegment(options.toolCallId)}.${payload.extension}`);
  const created = options.dryRun === true ? false : await createOnce(bucket, target, payload.stored);
  const retention = !created
    ? { removedBuckets: [], cleanupErrors: [] }
    : await applyBucketRetention({
        root,
        current: bucketName,
        maxAgeMs: options.maxBucketAgeMs ?? 7 * DAY_MS,
        maxBuckets: options.maxBuckets ?? 32,
        now: (options.clock ?? (() => new Date()))().getTime(),
      });
  return {
    status: 'persisted',
    reference: offloadReference({
      path: target,
      text: payload.text,
      previewChars: options.previewChars ?? DEFAULT_OFFLOAD_PREVIEW_CHARS,
    }),
    path: target,
    originalChars,
    created,
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

/**
 * `safeFileName`, with leading dots replaced too: no hidden files, and `resolveInside` (which rejects
 * any relative path starting with `..`) accepts names such as `.._.._x`.
 */
function safeSegment(raw: string): string {
  return safeFileName(raw).replace(/^\.+/, (dots) => '_'.repeat(dots.length));
}

type Payload = { readonly text: string; readonly stored: string; readonly extension: 'txt' | 'json' };

function offloadPayload(content: Content): Payload | undefined {
  if (typeof content === 'string') return { text: content, stored: content, extension: 'txt' };
  if (!content.every((part) => part.type === 'text')) return undefined;
  const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { text, stored: JSON.stringify(content, null, 2), extension: 'json' };
}

async function writeOnce(target: string, data: string): Promise<boolean> {
  if (await fileExists(target)) return false;
  await atomicWriteFile(target, data, { mode: 0o644 });
  return true;
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

async function createOnce(bucket: string, target: string, stored: string): Promise<boolean> {
  await mkdir(bucket, { recursive: true });
  return writeOnce(target, stored);
}
