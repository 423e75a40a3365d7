import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from './is-process-alive.js';

/** How old an ownerless temp file must be before it is removed (its writer may be on another host). */
const ORPHAN_AGE_MS = 60_000;
/** Temp files older than this are removed whatever their pid says (pid reuse). */
const ABANDONED_AGE_MS = 24 * 3_600_000;

const TEMP_NAME = /^\.(.+)\.ctxloom-(\d+)-[0-9a-f]{16}\.tmp$/;

/**
 * A fresh temp file name next to `target`: `.{name}.ctxloom-{pid}-{16 hex}.tmp`. The `ctxloom` tag and
 * the writer's pid let {@link removeStaleTempFiles} tell ours apart (nanobot's own temp files,
 * `.{name}.{16 hex}.tmp`, are never touched) and know whether the writer still runs.
 */
export function tempFileFor(target: string): string {
  const name = `.${path.basename(target)}.ctxloom-${process.pid}-${randomBytes(8).toString('hex')}.tmp`;
  return path.join(path.dirname(target), name);
}

/**
 * Removes ctxloom temp files in `dir` left by writers that were killed mid-write: those whose process
 * is gone and that were last written over a minute ago, and any older than a day. `forName` limits it
 * to the temp files of one target file name. Returns the removed paths; files that vanish meanwhile
 * or cannot be removed are skipped (another cleaner got there first).
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
    if (await isStale(file, { pid: Number(match[2]), now: options.now() })) {
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
  owner: { readonly pid: number; readonly now: number },
): Promise<boolean> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) return false;
  const age = owner.now - info.mtimeMs;
  return age > ABANDONED_AGE_MS || (age > ORPHAN_AGE_MS && !isProcessAlive(owner.pid));
}
