import path from 'node:path';
import { ContextError } from '../core/errors.js';

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
