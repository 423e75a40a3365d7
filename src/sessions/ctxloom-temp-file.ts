import { createHash, randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { isProcessAlive } from './is-process-alive.js';

/** How old a temp file of an older ctxloom (no host in its name) must be before its pid is trusted. */
const ORPHAN_AGE_MS = 60_000;
/** Temp files older than this are removed whatever their pid says (pid reuse, another host). */
const ABANDONED_AGE_MS = 24 * 3_600_000;

/** `.{name}.ctxloom-{host}-{pid}-{16 hex}.tmp`; older ctxloom versions wrote no `{host}-`. */
const TEMP_NAME = /^\.(.+)\.ctxloom-(?:([0-9a-f]{8})-)?(\d+)-[0-9a-f]{16}\.tmp$/;

/** This host's tag in temp file names: 8 hex of the host name's SHA-256 (a pid means something only on its host). */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/**
 * A fresh temp file name next to `target`: `.{name}.ctxloom-{host}-{pid}-{16 hex}.tmp`. The `ctxloom`
 * tag, the writer's host and its pid let {@link removeStaleTempFiles} tell ours apart (nanobot's own
 * temp files, `.{name}.{16 hex}.tmp`, are never touched) and know whether the writer still runs.
 */
export function tempFileFor(target: string): string {
  const name = `.${path.basename(target)}.ctxloom-${HOST_TAG}-${process.pid}-${randomBytes(8).toString('hex')}.tmp`;
  return path.join(path.dirname(target), name);
}

/**
 * Removes ctxloom temp files in `dir` left by writers that were killed mid-write: at once when the
 * writer ran on this host and its process is gone; a temp file of an older ctxloom (no host in its
 * name) when its process is gone and it was last written over a minute ago; and any older than a day
 * (pid reuse, another host). A live writer's temp file is never removed. `forName` limits it to the
 * temp files of one target file name. Returns the removed paths; files that vanish meanwhile or
 * cannot be removed (a read-only folder) are skipped.
 */
export async function removeStaleTempFiles(
  dir: string,
  options: { readonly now: () => number; readonly forName?: string },
): Promise<readonly string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (match === null || (options.forName !== undefined && match[1] !== options.forName)) continue;
    const file = path.join(dir, name);
    const owner = { host: match[2], pid: Number(match[3]), now: options.now() };
    if (await isStale(file, owner)) {
      const gone = await unlink(file).then(
        () => true,
        () => false,
      );
      if (gone) removed.push(file);
    }
  }
  return removed;
}

async function isStale(
  file: string,
  owner: { readonly host: string | undefined; readonly pid: number; readonly now: number },
): Promise<boolean> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) return false;
  const age = owner.now - info.mtimeMs;
  if (age > ABANDONED_AGE_MS) return true;
  if (owner.host === HOST_TAG) return !isProcessAlive(owner.pid);
  return owner.host === undefined && age > ORPHAN_AGE_MS && !isProcessAlive(owner.pid);
}
