import type { Stats } from 'node:fs';

/**
 * How long after its last change a file's stat is trusted to tell a later change: a second change
 * within one file-system timestamp tick (up to 2 s on FAT, a few ms on ext4) could keep its size and
 * times, so something read sooner than this after a change is read again next time.
 */
export const SETTLE_MS = 2000;

/**
 * What a cache compares to tell that a file or folder changed: inode, size, modification and change
 * times (a rename into place, an append, an in-place rewrite or a `touch` each change one). @internal
 */
export type FileStamp = { readonly key: string; readonly settled: boolean };

/** The stamp of `info`, taken now; `settled` when its last change is at least `settleMs` old. */
export function fileStamp(info: Stats, settleMs: number = SETTLE_MS): FileStamp {
  return {
    key: `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`,
    settled: Date.now() - lastChangeOf(info) >= settleMs,
  };
}

/** When `info`'s file or folder last changed (its content or its entry), in ms since the epoch. */
export function lastChangeOf(info: Stats): number {
  return Math.max(info.mtimeMs, info.ctimeMs);
}

/** True when what was read under `known` may be reused for a thing whose stamp is now `current`. */
export function isUnchanged(known: FileStamp | undefined, current: FileStamp): boolean {
  return known?.settled === true && known.key === current.key;
}
