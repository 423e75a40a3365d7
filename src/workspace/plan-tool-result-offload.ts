import { createHash } from 'node:crypto';
import path from 'node:path';
import { codePointLength } from '../core/code-points.js';
import type { Content } from '../core/message.js';
import { offloadReference } from './offload-reference.js';
import type { PersistToolResultOptions } from './persist-tool-result-options.js';
import { injectiveFileName, nanobotFileName, resolveInside } from './safe-path.js';

/** Characters a tool result may have before it is offloaded (nanobot's `max_tool_result_chars`). */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 16_000;

/** Characters of the original shown in an offload reference. */
export const DEFAULT_OFFLOAD_PREVIEW_CHARS = 1_200;

/** The folder, relative to the workspace, that holds offloaded tool results. */
export const TOOL_RESULTS_DIR = path.join('.ctxloom', 'tool-results');

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

type Payload = { readonly text: string; readonly stored: string; readonly extension: 'txt' | 'json' };

function offloadPayload(content: Content): Payload | undefined {
  if (typeof content === 'string') return { text: content, stored: content, extension: 'txt' };
  if (!content.every((part) => part.type === 'text')) return undefined;
  const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { text, stored: JSON.stringify(content, null, 2), extension: 'json' };
}
