import { type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { type FileStamp, fileStamp, isUnchanged, lastChangeOf, SETTLE_MS } from './file-stamp.js';

/**
 * Files found missing, each with the stamp of its folder at the time: while that folder's stamp
 * stays the same, nothing was created, removed or renamed in it, so the file is still missing and
 * is not looked up again. One stat of a folder then stands for the lookups of all its missing files
 * (the bootstrap files a workspace does not have, looked for at every build).
 *
 * Safe by order: a round stats a file's folder before the file is looked up, so a file created after
 * that stat changes the folder after the stamp kept. Only a settled stamp is kept (the folder's last
 * change at least `settleMs` old), since a second change within one timestamp tick could keep the
 * folder's times; until a folder can have settled, it is not stat'ed at all (its files are looked up
 * as they would be without this class). @internal
 */
export class MissingFiles {
  /** A missing file's path → its folder's stamp (settled) when it was found missing. */
  readonly #known = new Map<string, FileStamp>();
  /** A folder changed lately → the time before which its stamp cannot have settled. */
  readonly #settlesAt = new Map<string, number>();
  readonly #settleMs: number;

  constructor(settleMs: number = SETTLE_MS) {
    this.#settleMs = settleMs;
  }

  /** Starts a round of lookups (one build): each folder is stat'ed once, at its first file. */
  round(): MissingFilesRound {
    const known = this.#known;
    const stamps = new Map<string, FileStamp | undefined>();
    const stampOf = (file: string): FileStamp | undefined => {
      const folder = path.dirname(file);
      if (stamps.has(folder)) return stamps.get(folder);
      const stamp = this.#stamp(folder);
      stamps.set(folder, stamp);
      return stamp;
    };
    return {
      stillMissing: (file) => {
        const stamp = stampOf(file); // before the file is looked up, always
        const kept = known.get(file);
        return stamp !== undefined && isUnchanged(kept, stamp);
      },
      lookedUp: (file, missing) => {
        const stamp = stampOf(file);
        if (missing && stamp !== undefined) known.set(file, stamp);
        else known.delete(file);
      },
    };
  }

  /**
   * The settled stamp of `folder` now, or `undefined`: not settled (then the time it may settle is
   * kept, and the folder is not stat'ed again before), or not a folder one can stat.
   */
  #stamp(folder: string): FileStamp | undefined {
    const settlesAt = this.#settlesAt.get(folder);
    if (settlesAt !== undefined) {
      if (Date.now() < settlesAt) return undefined;
      this.#settlesAt.delete(folder);
    }
    const info = statFolder(folder);
    if (info === undefined) return undefined;
    const stamp = fileStamp(info, this.#settleMs);
    if (stamp.settled) return stamp;
    this.#settlesAt.set(folder, lastChangeOf(info) + this.#settleMs);
    return undefined;
  }
}

/** One round of {@link MissingFiles}. @internal */
export type MissingFilesRound = {
  /** True when `file` is known missing and its folder has not changed; call it before looking `file` up. */
  readonly stillMissing: (file: string) => boolean;
  /** Records what looking `file` up found (after `stillMissing` said false). */
  readonly lookedUp: (file: string, missing: boolean) => void;
};

/** The stat of `folder`, or `undefined` when it is missing, not a folder or cannot be stat'ed. */
function statFolder(folder: string): Stats | undefined {
  try {
    const info = statSync(folder, { throwIfNoEntry: false });
    return info?.isDirectory() === true ? info : undefined;
  } catch {
    return undefined; // looked up as before, which reports what is wrong
  }
}
