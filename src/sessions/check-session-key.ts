import { SessionStoreError } from '../core/errors.js';

/** Where a key is checked: the backend and the store operation, for the error. */
export type SessionKeyContext = { readonly backend: string; readonly operation: string };

/**
 * Throws `INVALID_INPUT` for a session key that no backend can store exactly, so every store keeps
 * the same set of keys apart and an import between backends never fails on a key:
 * - a lone UTF-16 surrogate (`"k\uD800"`): files, SQLite and PostgreSQL store keys as UTF-8, which
 *   cannot encode it; it would become U+FFFD and collide with every other such key;
 * - a NUL character: PostgreSQL text cannot hold it.
 * Any other string is a valid key (empty, `../`, emoji, 10,000 characters, …).
 */
export function checkSessionKey(sessionKey: string, where: SessionKeyContext): void {
  const problem = keyProblem(sessionKey);
  if (problem === undefined) return;
  throw new SessionStoreError({
    code: 'INVALID_INPUT',
    ...where,
    message: `Session key ${JSON.stringify(sessionKey)} ${problem}; session keys must be well-formed Unicode without NUL. Remove or replace that character.`,
    details: { sessionKey },
  });
}

function keyProblem(key: string): string | undefined {
  for (let index = 0; index < key.length; index += 1) {
    const unit = key.charCodeAt(index);
    if (unit === 0) return `contains a NUL character at index ${index}`;
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = key.charCodeAt(index + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      index += 1;
      continue;
    }
    return `contains a lone UTF-16 surrogate (\\u${unit.toString(16)}) at index ${index}, which UTF-8 cannot store`;
  }
  return undefined;
}
