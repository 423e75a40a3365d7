import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { atomicWriteFile } from '../workspace/atomic-write.js';
import { WorkspaceFileCache } from '../workspace/file-cache.js';
import { hasErrorCode } from '../workspace/fs-helpers.js';

/** Options for {@link MemoryFile}. */
export type MemoryFileOptions = {
  /** The agent workspace; the file is `<workspace>/memory/MEMORY.md`. */
  readonly workspace: string;
  /** Previous versions kept in `memory/.backups/` (the oldest are removed beyond this). @default 10 */
  readonly maxBackups?: number;
  /** The clock for backup names. @default the system clock */
  readonly now?: () => Date;
};

/** What {@link MemoryFile.write} did. */
export type MemoryFileWrite = {
  /** False when the file already had this content (nothing written, no backup). */
  readonly changed: boolean;
  /** The backup of the previous version, when there was one. */
  readonly backupPath?: string;
};

/** The default of {@link MemoryFileOptions.maxBackups}. */
export const DEFAULT_MEMORY_BACKUPS = 10;

const BACKUP_NAME = /^MEMORY\.\d{8}T\d{9}Z\.\d{3}\.md$/;

/**
 * `memory/MEMORY.md`: the long-term facts injected into the system prompt and kept current by the
 * memory writer. Reads return `''` when the file is missing. A write is atomic (temp file, fsync,
 * rename), first copies the previous version to `memory/.backups/MEMORY.<time>.<n>.md` (keeping the
 * newest `maxBackups`), and keeps the file's permission bits (a new file gets the usual `0666` minus
 * the umask).
 */
export class MemoryFile {
  /** The absolute path of MEMORY.md. */
  readonly path: string;
  /** The folder of previous versions, `memory/.backups`. */
  readonly backupDir: string;
  readonly #maxBackups: number;
  readonly #now: () => Date;
  /** MEMORY.md as last read: a build re-reads it only when it changed. */
  readonly #file = new WorkspaceFileCache({ maxEntries: 1 });

  constructor(options: MemoryFileOptions) {
    this.path = path.join(options.workspace, 'memory', 'MEMORY.md');
    this.backupDir = path.join(options.workspace, 'memory', '.backups');
    this.#maxBackups = options.maxBackups ?? DEFAULT_MEMORY_BACKUPS;
    if (!(Number.isInteger(this.#maxBackups) && this.#maxBackups >= 1)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `maxBackups must be a whole number ≥ 1 (MEMORY.md is never replaced without a backup), got ${this.#maxBackups}.`,
      });
    }
    this.#now = options.now ?? (() => new Date());
  }

  /** The file's text, or `''` when it does not exist (re-read only when its stat changed). */
  async read(): Promise<string> {
    return (await this.#file.readIfExists(this.path))?.text ?? '';
  }

  /** Replaces the file's text atomically, after backing up the previous version; creates `memory/`. */
  async write(content: string): Promise<MemoryFileWrite> {
    const mode = await modeOf(this.path);
    if (mode !== undefined && (await this.read()) === content) return { changed: false };
    await mkdir(path.dirname(this.path), { recursive: true });
    const backupPath = mode === undefined ? undefined : await this.#backup();
    await atomicWriteFile(this.path, content, { mode: mode ?? 0o666 });
    // The umask may have narrowed the mode of the new file; restore the old bits exactly.
    if (mode !== undefined && (await modeOf(this.path)) !== mode) await chmod(this.path, mode);
    return { changed: true, ...(backupPath === undefined ? {} : { backupPath }) };
  }

  /** The backups, newest first. */
  async backups(): Promise<readonly string[]> {
    let names: string[];
    try {
      names = await readdir(this.backupDir);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return [];
      throw error;
    }
    return names
      .filter((name) => BACKUP_NAME.test(name))
      .sort()
      .reverse()
      .map((name) => path.join(this.backupDir, name));
  }

  async #backup(): Promise<string> {
    await mkdir(this.backupDir, { recursive: true, mode: 0o700 });
    const stamp = this.#now().toISOString().replace(/[-:.]/g, '');
    const newest = (await this.backups())
      .map((file) => path.basename(file))
      .find((name) => name.startsWith(`MEMORY.${stamp}.`));
    // Names sort by time, then by sequence: continue after the newest backup of the same instant.
    for (
      let sequence = newest === undefined ? 0 : Number(newest.slice(-6, -3)) + 1;
      sequence <= 999;
      sequence += 1
    ) {
      const target = path.join(this.backupDir, `MEMORY.${stamp}.${String(sequence).padStart(3, '0')}.md`);
      try {
        // Keeps the file's mode; fails rather than overwrite an existing backup.
        await copyFile(this.path, target, constants.COPYFILE_EXCL);
      } catch (error) {
        if (hasErrorCode(error, 'EEXIST')) continue;
        throw error;
      }
      for (const old of (await this.backups()).slice(this.#maxBackups)) await unlink(old);
      return target;
    }
    throw new ContextError({
      code: 'STORE_CONFLICT',
      message: `1,000 backups of MEMORY.md were made at ${stamp} in ${this.backupDir}; the clock (now) may be frozen. Nothing was written.`,
    });
  }
}

async function modeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mode & 0o7777;
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}
