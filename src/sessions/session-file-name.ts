import { createHash } from 'node:crypto';

/** Longest base64url stem before a key is hashed instead (file names are limited to 255 bytes). */
const MAX_ENCODED = 200;

/**
 * The file name of a session: nanobot's `{base64url(key) without padding}.jsonl`. The alphabet has no
 * `/`, `\` or `.`, so no key can leave the sessions folder or collide with another. Keys whose
 * encoding exceeds 200 characters are stored as `~{sha256 hex}.jsonl` (`~` is outside the base64url
 * alphabet); their key is read back from the file's metadata record.
 */
export function sessionFileName(sessionKey: string): string {
  const encoded = Buffer.from(sessionKey, 'utf8').toString('base64url');
  if (encoded.length <= MAX_ENCODED) return `${encoded}.jsonl`;
  return `~${createHash('sha256').update(sessionKey, 'utf8').digest('hex')}.jsonl`;
}

/** The session key encoded in a file name, or `undefined` for hashed or foreign names. */
export function sessionKeyFromFileName(fileName: string): string | undefined {
  if (!fileName.endsWith('.jsonl')) return undefined;
  const stem = fileName.slice(0, -'.jsonl'.length);
  if (!/^[A-Za-z0-9_-]*$/.test(stem)) return undefined;
  return Buffer.from(stem, 'base64url').toString('utf8');
}
