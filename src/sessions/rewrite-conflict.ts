import { SessionStoreError } from '../core/errors.js';
import type { SessionRewrite } from './session-store.js';

/** Throws `STORE_CONFLICT` when `rewrite.ifMessageCount` is set and differs from `actual`. */
export function checkRewriteCount(
  rewrite: SessionRewrite,
  where: { readonly backend: string; readonly actual: number },
): void {
  if (rewrite.ifMessageCount === undefined || rewrite.ifMessageCount === where.actual) return;
  throw new SessionStoreError({
    code: 'STORE_CONFLICT',
    backend: where.backend,
    operation: 'rewrite',
    message: `The session holds ${where.actual} messages, not the expected ${rewrite.ifMessageCount}; another writer changed it. Reload and retry.`,
  });
}
