import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { throwIfAborted } from '../core/errors.js';
import type { ContentPart, ImagePart } from '../core/message.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { leavesFolder } from '../workspace/safe-path.js';

/** Why an attached file was left out of the message. */
export type SkippedMedia = {
  readonly path: string;
  readonly reason:
    | 'unsafe-path'
    | 'outside-media-roots'
    | 'missing'
    | 'not-a-file'
    | 'unreadable'
    | 'too-large';
};

/** Options for {@link loadUserMedia}. */
export type LoadUserMediaOptions = {
  /** Relative paths resolve against this folder. @default process.cwd() */
  readonly cwd?: string;
  /** When set, every file must resolve inside one of these folders. @default undefined (anywhere) */
  readonly mediaRoots?: readonly string[];
  /** Images larger than this are skipped. @default 20 MiB */
  readonly maxImageBytes?: number;
  readonly signal?: AbortSignal;
};

/** What {@link loadUserMedia} found: image parts, attachment paths and skipped files. */
export type UserMedia = {
  readonly images: readonly ImagePart[];
  /** Absolute paths of the non-image files. */
  readonly attachments: readonly string[];
  readonly skipped: readonly SkippedMedia[];
};

const EXTENSION_TYPES: ReadonlyMap<string, string> = new Map([
  ['.png', 'image/png'],
  ['.jpg', 'image/jpeg'],
  ['.jpeg', 'image/jpeg'],
  ['.gif', 'image/gif'],
  ['.webp', 'image/webp'],
]);

/**
 * Detects PNG, JPEG, GIF and WEBP from the first bytes of a file; `undefined`
 * otherwise.
 */
export function detectImageType(bytes: Uint8Array): string | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * Reads the files attached to a user message: images (by magic bytes, else by extension) become
 * data-URL image parts that record their `path`; other files become attachment paths for
 * `[Attachment: path]` lines (the model reads them on demand). Paths are user input: a NUL byte, a
 * path outside `mediaRoots`, a missing or unreadable file, or anything that is not a regular file is
 * skipped with a reason, never followed further.
 */
export async function loadUserMedia(
  paths: readonly string[],
  options: LoadUserMediaOptions = {},
): Promise<UserMedia> {
  const images: ImagePart[] = [];
  const attachments: string[] = [];
  const skipped: SkippedMedia[] = [];
  for (const raw of paths) {
    throwIfAborted(options.signal);
    const outcome = await loadOne(raw, options);
    if ('reason' in outcome) skipped.push(outcome);
    else if (outcome.kind === 'image') images.push(outcome.part);
    else attachments.push(outcome.path);
  }
  return { images, attachments, skipped };
}

/** The text with `[Attachment: path]` lines appended after a blank line. */
export function withAttachmentLines(text: string, attachments: readonly string[]): string {
  if (attachments.length === 0) return text;
  const lines = attachments.map((file) => `[Attachment: ${file}]`).join('\n');
  return text === '' ? lines : `${text}\n\n${lines}`;
}

/** Images first, then the text (nanobot's order); plain text when there is no image. */
export function imagesThenText(images: readonly ImagePart[], text: string): string | readonly ContentPart[] {
  return images.length === 0 ? text : [...images, { type: 'text', text }];
}

type Loaded =
  | { readonly kind: 'image'; readonly part: ImagePart }
  | { readonly kind: 'attachment'; readonly path: string }
  | SkippedMedia;

async function loadOne(raw: string, options: LoadUserMediaOptions): Promise<Loaded> {
  if (raw.trim() === '' || raw.includes('\0')) return { path: raw, reason: 'unsafe-path' };
  const file = path.resolve(options.cwd ?? process.cwd(), raw);
  if (options.mediaRoots !== undefined && !(await isInsideRoots(file, options.mediaRoots))) {
    return { path: file, reason: 'outside-media-roots' };
  }
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) return { path: file, reason: 'not-a-file' };
    size = info.size;
  } catch (error) {
    return { path: file, reason: isMissingFileError(error) ? 'missing' : 'unreadable' };
  }
  try {
    const head = await readBytes(file, 16);
    const mediaType = detectImageType(head) ?? EXTENSION_TYPES.get(path.extname(file).toLowerCase());
    if (mediaType === undefined) return { kind: 'attachment', path: file };
    if (size > (options.maxImageBytes ?? 20 * 1024 * 1024)) return { path: file, reason: 'too-large' };
    const bytes = await readBytes(file, size);
    const url = `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;
    return { kind: 'image', part: { type: 'image', url, mediaType, path: file } };
  } catch {
    return { path: file, reason: 'unreadable' };
  }
}

async function readBytes(file: string, length: number): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

/** Inside one of the roots, both before and after following symbolic links. */
async function isInsideRoots(file: string, roots: readonly string[]): Promise<boolean> {
  if (!roots.some((root) => isInside(path.resolve(root), file))) return false;
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined) return true; // missing: reported as such by the stat that follows
  const realRoots = await Promise.all(roots.map((root) => realpath(root).catch(() => path.resolve(root))));
  return realRoots.some((root) => isInside(root, real));
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return !leavesFolder(relative);
}
