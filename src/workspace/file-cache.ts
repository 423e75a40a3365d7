import { type Stats, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { throwIfAborted } from '../core/errors.js';
import { LruCache } from '../core/lru-cache.js';
import { type FileStamp, fileStamp, isUnchanged, SETTLE_MS } from './file-stamp.js';
import { hasErrorCode } from './fs-helpers.js';

/** Options for {@link WorkspaceFileCache}. */
export type WorkspaceFileCacheOptions = {
  /** How many files the cache keeps. @default 256 */
  readonly maxEntries?: number;
  /**
   * A file changed less than this many milliseconds before it was read is read again next time,
   * since a second change within one file-system timestamp tick (up to 2 s on FAT, a few ms on
   * ext4) could keep its size and times. @default SETTLE_MS (2000)
   */
  readonly settleMs?: number;
};

/** Defaults of {@link WorkspaceFileCacheOptions}. */
export const DEFAULT_WORKSPACE_FILE_CACHE = Object.freeze({ maxEntries: 256, settleMs: SETTLE_MS });

/** A text file as read: its content and the stat fields that key the cache. */
export type CachedTextFile = {
  readonly path: string;
  readonly text: string;
  readonly mtimeMs: number;
  readonly size: number;
};

type Entry = { readonly file: CachedTextFile; readonly stamp: FileStamp };

/**
 * Caches text files by their stat (inode, size, modification and change times): a read stats the
 * file and reuses the cached text while none of them changed, so a turn does not re-read unchanged
 * workspace files. A file read within `settleMs` of its last change is not reused (a same-size
 * rewrite in the same timestamp tick would look unchanged): it is read again until it settles. An
 * unchanged file gives the same `CachedTextFile` object back, so callers can keep what they derived
 * from it by identity. `hits` and `misses` count the reads served from the cache and from disk.
 */
export class WorkspaceFileCache {
  readonly #entries: LruCache<string, Entry>;
  readonly #settleMs: number;
  #hits = 0;
  #misses = 0;

  constructor(options: WorkspaceFileCacheOptions = {}) {
    this.#entries = new LruCache(options.maxEntries ?? DEFAULT_WORKSPACE_FILE_CACHE.maxEntries);
    this.#settleMs = options.settleMs ?? DEFAULT_WORKSPACE_FILE_CACHE.settleMs;
  }

  /** Reads served from the cache. */
  get hits(): number {
    return this.#hits;
  }

  /** Reads that went to disk. */
  get misses(): number {
    return this.#misses;
  }

  /**
   * Reads `path` as UTF-8, from the cache when its stat is unchanged. `stats`, when given, is a stat
   * of `path` the caller took just before (e.g. an `lstat` that found a plain file): it stands for
   * the cache's own, so the file is not stat'ed twice.
   * Rejects with the file system's error (e.g. `ENOENT`) when the file cannot be read.
   */
  async read(
    path: string,
    options: { readonly signal?: AbortSignal; readonly stats?: Stats } = {},
  ): Promise<CachedTextFile> {
    throwIfAborted(options.signal);
    // One synchronous stat: far cheaper than a round trip through the thread pool, and every build
    // still sees a file changed since the last one.
    return this.#read(path, { info: options.stats ?? statSync(path), signal: options.signal });
  }

  /**
   * As {@link WorkspaceFileCache.read}, but `undefined` for a missing file (told by a stat that makes
   * no error object), also when it is removed between the stat and the read.
   */
  async readIfExists(
    path: string,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<CachedTextFile | undefined> {
    throwIfAborted(options.signal);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info === undefined) {
      this.#entries.delete(path);
      return undefined;
    }
    try {
      return await this.#read(path, { info, signal: options.signal });
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw error;
      this.#entries.delete(path);
      return undefined;
    }
  }

  /** Forgets every cached file. */
  clear(): void {
    this.#entries.clear();
  }

  async #read(
    path: string,
    { info, signal }: { readonly info: Stats; readonly signal: AbortSignal | undefined },
  ): Promise<CachedTextFile> {
    // Stamped with the stat taken before the read: a change during the read shows as a new stamp.
    const stamp = fileStamp(info, this.#settleMs);
    const cached = this.#entries.get(path);
    if (cached !== undefined && isUnchanged(cached.stamp, stamp)) {
      this.#hits += 1;
      return cached.file;
    }
    const text = await readFile(
      path,
      signal === undefined ? { encoding: 'utf8' } : { encoding: 'utf8', signal },
    );
    // The same text as cached (a file re-read until it settled) keeps its object.
    const file: CachedTextFile =
      cached !== undefined && cached.file.text === text && cached.file.mtimeMs === info.mtimeMs
        ? cached.file
        : { path, text, mtimeMs: info.mtimeMs, size: info.size };
    this.#entries.set(path, { file, stamp });
    this.#misses += 1;
    return file;
  }
}
