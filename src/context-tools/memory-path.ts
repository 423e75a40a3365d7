import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { leavesFolder } from '../workspace/safe-path.js';

/** The folder every memory-tool path starts with (Anthropic's memory tool). */
export const MEMORY_TOOL_PREFIX = '/memories';

/** The longest memory path accepted, in characters. */
export const MAX_MEMORY_PATH_CHARS = 512;

/** The deepest memory path accepted, in segments. */
const MAX_MEMORY_PATH_DEPTH = 16;

/** A memory path checked and mapped into the folder. */
export type MemoryPath = {
  /** As the model wrote it, normalised: `/memories/notes/todo.md`. */
  readonly shown: string;
  /** The relative segments under the folder (empty for the folder itself). */
  readonly segments: readonly string[];
  /** The absolute path inside the folder. */
  readonly file: string;
};

/**
 * Maps a model's memory path (`/memories/...`) into `root`, refusing everything that could leave it
 * or hide there: a path not under `/memories`, `..` or `.` segments, backslashes, percent-encoded
 * characters, NUL and control characters, hidden names (`.cursor`, lock files), names over 255 bytes,
 * paths over 512 characters or 16 levels. Returns the path or the message telling the model why.
 * Links are checked separately ({@link checkNoLinkOut}), when the file system is touched.
 */
export function mapMemoryPath(raw: unknown, root: string): MemoryPath | { readonly error: string } {
  if (typeof raw !== 'string' || raw === '') return { error: 'a path under /memories is required.' };
  const shown = JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
  if (raw.length > MAX_MEMORY_PATH_CHARS)
    return { error: `the path ${shown} has ${raw.length} characters, over ${MAX_MEMORY_PATH_CHARS}.` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\u0000-\u001f\u007f\\%]/.test(raw))
    return {
      error: `the path ${shown} has a control character, a backslash or a percent sign; use plain / paths under /memories.`,
    };
  if (raw !== MEMORY_TOOL_PREFIX && !raw.startsWith(`${MEMORY_TOOL_PREFIX}/`))
    return { error: `the path ${shown} is not under /memories; every memory path starts with /memories.` };
  const segments = raw
    .slice(MEMORY_TOOL_PREFIX.length)
    .split('/')
    .filter((segment) => segment !== '');
  if (segments.length > MAX_MEMORY_PATH_DEPTH)
    return { error: `the path ${shown} is ${segments.length} levels deep, over ${MAX_MEMORY_PATH_DEPTH}.` };
  const bad = segments.find(
    (segment) => segment.startsWith('.') || Buffer.byteLength(segment, 'utf8') > 255 || segment.trim() === '',
  );
  if (bad !== undefined)
    return {
      error: `the path ${shown} has a segment that is not allowed (${JSON.stringify(bad.slice(0, 40))}): no '.', '..', hidden names or names over 255 bytes.`,
    };
  const file = path.resolve(root, ...segments);
  if (leavesFolder(path.relative(path.resolve(root), file)))
    return { error: `the path ${shown} leaves /memories.` };
  return { shown: [MEMORY_TOOL_PREFIX, ...segments].join('/'), segments, file };
}

/**
 * Refuses a path that is a link, or whose nearest existing folder is (through links) outside the real
 * root: so nothing outside the folder is read or written through a link planted in it.
 */
export async function checkNoLinkOut(target: MemoryPath, root: string): Promise<string | undefined> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (error) {
    // No folder yet: nothing in it can be a link.
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
  for (let depth = target.segments.length; depth >= 1; depth -= 1) {
    const candidate = path.join(root, ...target.segments.slice(0, depth));
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(candidate);
    } catch (error) {
      if (isMissingFileError(error)) continue;
      throw error;
    }
    if (stats.isSymbolicLink())
      return `${target.shown} goes through a link; links are not followed in /memories.`;
    const real = await realpath(candidate);
    if (leavesFolder(path.relative(realRoot, real))) return `${target.shown} resolves outside /memories.`;
  }
  return undefined;
}
