import type { Metadata } from '../core/message.js';

/** Shallow-merges `patch` into `base`; keys whose patch value is `undefined` are removed. */
export function mergeMetadata(base: Metadata, patch: Metadata): Metadata {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

/** Compares two session keys by code unit, the order every store's `list()` uses. */
export function compareKeys(left: { readonly key: string }, right: { readonly key: string }): number {
  return left.key < right.key ? -1 : left.key > right.key ? 1 : 0;
}
