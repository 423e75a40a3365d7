import { statSync } from 'node:fs';
import path from 'node:path';
import { type FileStamp, fileStamp, SETTLE_MS } from './file-stamp.js';

/**
 * Files found missing, each with the stamp of its folder at the time: while that folder's stamp
 * stays the same, nothing was created, removed or renamed in it, so the file is still missing and
 * is not looked up again. One stat of a folder then stands for the lookups of all its missing files
 * (the bootstrap files a workspace does not have, looked for at every build).
 *
 * Safe by order: a round stats a file's folder before the file is looked up, so a file created after
 * that stat changes the folder after the stamp kept. Only a settled stamp is kept (the folder's last
 * change at least `settleMs` old), since a second change within one timestamp tick could keep the
 * folder's times. @internal
 */
export class MissingFiles {
  /** A missing file's path → its folder's stamp key when it was found missing. */
  readonly #known = new Map<string, string>();
  readonly #settleMs: number;

  constructor(settleMs: number = SETTLE_MS) {
    this.#settleMs = settleMs;
  }

  /** Starts a round of lookups (one build): each folder is stat'ed once, at its first file. */
  round(): MissingFilesRound {
    const known = this.#known;
    const settleMs = this.#settleMs;
    const stamps = new Map<string, FileStamp | undefined>();
    const stampOf = (file: string): FileStamp | undefined => {
      const folder = path.dirname(file);
      if (stamps.has(folder)) return stamps.get(folder);
      const info = statSync(folder, { throwIfNoEntry: false });
      const stamp = info === undefined ? undefined : fileStamp(info, settleMs);
      stamps.set(folder, stamp);
      return stamp;
    };
    return {
      stillMissing: (file) => {
        const stamp = stampOf(file); // before the file is looked up, always
        return stamp !== undefined && known.get(file) === stamp.key;
      },
      lookedUp: (file, missing) => {
        const stamp = stampOf(file);
        if (missing && stamp?.settled === true) known.set(file, stamp.key);
        else known.delete(file);
      },
    };
  }
}

/** One round of {@link MissingFiles}. @internal */
export type MissingFilesRound = {
  /** True when `file` is known missing and its folder has not changed; call it before looking `file` up. */
  readonly stillMissing: (file: string) => boolean;
  /** Records what looking `file` up found (after `stillMissing` said false). */
  readonly lookedUp: (file: string, missing: boolean) => void;
};
