import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from './fs-helpers.js';
import { resolveInside } from './safe-path.js';

/**
 * Deletes the session folders beside `current` under `root` that are older than `maxAgeMs` (by mtime),
 * then the oldest of the rest until `maxBuckets` remain, `current` included. Failures are collected in
 * `cleanupErrors`, never thrown.
 */
export async function applyBucketRetention(options: {
  readonly root: string;
  readonly current: string;
  readonly maxAgeMs: number;
  readonly maxBuckets: number;
  readonly now: number;
}): Promise<{ readonly removedBuckets: readonly string[]; readonly cleanupErrors: readonly string[] }> {
  const removedBuckets: string[] = [];
  const cleanupErrors: string[] = [];
  const remove = async (name: string): Promise<void> => {
    try {
      await rm(resolveInside(options.root, name), { recursive: true, force: true });
      removedBuckets.push(name);
    } catch (error) {
      cleanupErrors.push(`${name}: ${describeError(error)}`);
    }
  };
  let siblings: readonly Bucket[];
  try {
    siblings = await listSiblingBuckets(options.root, { current: options.current, errors: cleanupErrors });
  } catch (error) {
    return { removedBuckets, cleanupErrors: [describeError(error)] };
  }
  const fresh: Bucket[] = [];
  for (const sibling of siblings) {
    if (options.now - sibling.mtimeMs > options.maxAgeMs) await remove(sibling.name);
    else fresh.push(sibling);
  }
  fresh.sort((a, b) => b.mtimeMs - a.mtimeMs || a.name.localeCompare(b.name));
  for (const sibling of fresh.slice(Math.max(0, options.maxBuckets - 1))) await remove(sibling.name);
  return { removedBuckets, cleanupErrors };
}

type Bucket = { readonly name: string; readonly mtimeMs: number };

async function listSiblingBuckets(
  root: string,
  options: { readonly current: string; readonly errors: string[] },
): Promise<readonly Bucket[]> {
  const siblings: Bucket[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === options.current) continue;
    try {
      siblings.push({ name: entry.name, mtimeMs: (await stat(path.join(root, entry.name))).mtimeMs });
    } catch (error) {
      options.errors.push(`${entry.name}: ${describeError(error)}`);
    }
  }
  return siblings;
}
