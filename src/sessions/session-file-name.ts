import { createHash } from 'node:crypto';

/** Longest base64url stem before a key is hashed instead (file names are limited to 255 bytes). */
const MAX_ENCODED = 200;
const SUFFIX = '.jsonl';
/** The characters nanobot's `safe_filename` replaces with `_`. */
const UNSAFE = /[<>:"/\\|?*]/g;

/**
 * The file name of a session: nanobot's `{base64url(key) without padding}.jsonl`. The alphabet has no
 * `/`, `\` or `.`, so no key can leave the sessions folder, and the encoding is injective (keys are
 * well-formed Unicode, see `checkSessionKey`). Keys whose encoding exceeds 200 characters are stored
 * as `~{sha256 hex}.jsonl` (`~` is outside the base64url alphabet); their key is read back from the
 * file's metadata record.
 */
export function sessionFileName(sessionKey: string): string {
  const encoded = Buffer.from(sessionKey, 'utf8').toString('base64url');
  if (encoded.length <= MAX_ENCODED) return `${encoded}${SUFFIX}`;
  return `~${createHash('sha256').update(sessionKey, 'utf8').digest('hex')}${SUFFIX}`;
}

/**
 * The name older nanobot versions gave a session file, `{safe_filename(key with ':' → '_')}.jsonl`
 * (`cli:direct` → `cli_direct.jsonl`). It is lossy (`a:b` and `a_b` share it), so a file found under
 * it belongs to a key only if its metadata record says so; see {@link sessionKeyOfFile}.
 */
export function legacySessionFileName(sessionKey: string): string {
  return `${sessionKey.replaceAll(':', '_').replace(UNSAFE, '_').trim()}${SUFFIX}`;
}

/**
 * The key a session file holds: the `key` of its metadata record when it has one; else the key its
 * name encodes (a base64url name that decodes to UTF-8 and encodes back to the same name); else
 * nanobot's guess for a legacy name (the first `_` becomes `:`). Undefined for hashed names without a
 * readable metadata record, and for names that are not `.jsonl`.
 */
export function sessionKeyOfFile(fileName: string, headerKey: string | undefined): string | undefined {
  if (!fileName.endsWith(SUFFIX)) return undefined;
  if (headerKey !== undefined) return headerKey;
  const stem = fileName.slice(0, -SUFFIX.length);
  if (stem.startsWith('~')) return undefined;
  const decoded = /^[A-Za-z0-9_-]*$/.test(stem) ? Buffer.from(stem, 'base64url').toString('utf8') : undefined;
  if (decoded !== undefined && Buffer.from(decoded, 'utf8').toString('base64url') === stem) return decoded;
  return stem.replace('_', ':');
}
