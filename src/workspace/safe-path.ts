import { createHash } from 'node:crypto';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { LruCache } from '../core/lru-cache.js';

/**
 * Paths resolved inside an absolute root, by root and path: providers resolve the same few files
 * (AGENTS.md, memory/MEMORY.md, …) at every build, and `path.resolve` and `path.relative` cost
 * microseconds each. Refusals are not kept.
 */
const resolvedInside = new LruCache<string, string>(512);

/**
 * Resolves `relativePath` inside `root` and refuses anything that would leave it (`..`, an absolute
 * path elsewhere, a NUL byte).
 * @throws ContextError `UNSAFE_PATH` naming the path and the root.
 */
export function resolveInside(root: string, relativePath: string): string {
  if (relativePath.includes('\0')) {
    throw new ContextError({
      code: 'UNSAFE_PATH',
      message: `Path ${JSON.stringify(relativePath)} contains a NUL byte.`,
    });
  }
  // The path has no NUL, so the key names one root and one path.
  const key = dependsOnWorkingDirectory(root) ? undefined : `${root}\0${relativePath}`;
  const known = key === undefined ? undefined : resolvedInside.get(key);
  if (known !== undefined) return known;
  const resolved = resolveChecked(root, relativePath);
  if (key !== undefined) resolvedInside.set(key, resolved);
  return resolved;
}

/**
 * True for a root that resolves against the working directory, which may change between calls: a
 * relative one, and on Windows one without a drive or server (`\\tmp` is on the current drive).
 */
function dependsOnWorkingDirectory(root: string): boolean {
  if (!path.isAbsolute(root)) return true;
  return process.platform === 'win32' && !/^([a-zA-Z]:[\\/]|[\\/]{2})/.test(root);
}

/** `resolveInside` without the cache, for a path with no NUL. */
function resolveChecked(root: string, relativePath: string): string {
  const base = path.resolve(root);
  const resolved = path.resolve(base, relativePath);
  const relative = path.relative(base, resolved);
  if (!leavesFolder(relative)) return resolved;
  throw new ContextError({
    code: 'UNSAFE_PATH',
    message: `Path ${JSON.stringify(relativePath)} leaves ${base}; use a path inside that folder.`,
    details: { root: base, path: relativePath },
  });
}

/**
 * Makes a string safe as one file name: replaces `< > : " / \ | ? *`, control characters and NUL with
 * `_`, trims, and maps the empty name and the dot names (`.`, `..`) to `_`. Never returns a path
 * separator, so the result can't leave its folder.
 */
export function safeFileName(raw: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we replace
  const replaced = raw.replace(/[<>:"/\\|?*\u0000-\u001f]/g, '_').trim();
  if (replaced === '' || /^\.+$/.test(replaced)) return '_'.repeat(Math.max(1, replaced.length));
  return replaced;
}

/**
 * True when a relative path (as `path.relative` or `path.normalize` gives it) leaves its folder: it is
 * `..`, starts with `../`, or is absolute. Names that merely start with dots (`..notes.md`) stay inside.
 */
export function leavesFolder(relativePath: string): boolean {
  return relativePath === '..' || relativePath.startsWith(`..${path.sep}`) || path.isAbsolute(relativePath);
}

/** A high surrogate without its low half, or a low one without its high half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The longest name (in UTF-8 bytes) kept as nanobot writes it; most file systems allow 255. */
const MAX_PORTABLE_NAME_BYTES = 200;

/**
 * nanobot's name for an offload folder or file (`safeFileName`: `< > : " / \ | ? *` and control
 * characters become `_`, trimmed) when that name is also valid on Windows and everywhere else: not a
 * device name (`CON`, `nul.x`), no trailing dot or space, no lone surrogate, at most 200 UTF-8 bytes.
 * Any other input gets `injectiveFileName`. Not injective (`a:b` and `a_b` share `a_b`): callers that
 * need one name per input check what is on disk (see `ToolResultOffloadWriter`).
 */
export function nanobotFileName(raw: string): string {
  const safe = safeFileName(raw);
  const portable =
    !WINDOWS_RESERVED.test(safe.split('.')[0] ?? safe) &&
    !/[. ]$/.test(safe) &&
    !LONE_SURROGATE.test(safe) &&
    Buffer.byteLength(safe, 'utf8') <= MAX_PORTABLE_NAME_BYTES;
  return portable ? safe : injectiveFileName(raw);
}

/** Names a plain segment may keep as they are: lower-case ASCII letters, digits, `_` and `-`. */
const PLAIN_SEGMENT = /^[a-z0-9_-]{1,64}$/;

/** Device names Windows reserves whatever the extension or case (`CON`, `nul.txt`, `COM1`, `LPT¹`). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * Maps any string to one file or folder name, injectively: distinct inputs get distinct names, on
 * case-sensitive and case-insensitive file systems alike. A plain name (1 to 64 lower-case letters,
 * digits, `_` or `-`, not a Windows device name) is kept as it is; anything else becomes a readable
 * part (at most 40 characters of `[A-Za-z0-9_-]`) followed by `~` and 16 hex digits of the SHA-256 of
 * the UTF-16 code units, so `call:1` and `call_1`, `a:b` and `a_b`, `Call` and `call`, or two keys
 * that differ only in a lone surrogate never share a name. The result is valid on Windows too (no
 * reserved characters, device names, leading or trailing dots or spaces) and never a path separator,
 * `.` or `..`, so it can't leave its folder.
 */
export function injectiveFileName(raw: string): string {
  if (PLAIN_SEGMENT.test(raw) && !WINDOWS_RESERVED.test(raw)) return raw;
  const readable = raw.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);
  const digest = createHash('sha256').update(Buffer.from(raw, 'utf16le')).digest('hex').slice(0, 16);
  return `${readable}~${digest}`;
}
