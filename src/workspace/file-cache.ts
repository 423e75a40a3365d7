import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { throwIfAborted } from '../core/errors.js';
import { LruCache } from '../core/lru-cache.js';

/** Options for {@link WorkspaceFileCache}. */
export type WorkspaceFileCacheOptions = {
  /** How many files the cache keeps. @default 256 */
  readonly maxEntries?: number;
};

/** Defaults of {@link WorkspaceFileCacheOptions}. */
export const DEFAULT_WORKSPACE_FILE_CACHE = Object.freeze({ maxEntries: 256 });

/** A text file as read: its content and the stat fields that key the cache. */
export type CachedTextFile = {
  readonly path: string;
  readonly text: string;
  readonly mtimeMs: number;
  readonly size: number;
};

/**
 * Caches text files by (path, mtimeMs, size): a read stats the file and reuses the cached text while
 * neither changed, so a turn does not re-read unchanged workspace files. `hits` and `misses` count
 * the reads served from the cache and from disk.
 */
export class WorkspaceFileCache {
  readonly #entries: LruCache<string, CachedTextFile>;
  #hits = 0;
  #misses = 0;

  constructor(options: WorkspaceFileCacheOptions = {}) {
    this.#entries = new LruCache(options.maxEntries ?? DEFAULT_WORKSPACE_FILE_CACHE.maxEntries);
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
   * Reads `path` as UTF-8, from the cache when its mtime and size are unchanged.
   * Rejects with the file system's error (e.g. `ENOENT`) when the file cannot be read.
   */
  async read(path: string, options: { readonly signal?: AbortSignal } = {}): Promise<CachedTextFile> {
    throwIfAborted(options.signal);
    // One synchronous stat: far cheaper than a round trip through the thread pool, and every build
    // still sees a file changed since the last one.
    const info = statSync(path);
    const cached = this.#entries.get(path);
    if (cached !== undefined && cached.mtimeMs === info.mtimeMs && cached.size === info.size) {
      this.#hits += 1;
      return cached;
    }
    const text = await readFile(
      path,
      options.signal === undefined ? { encoding: 'utf8' } : { encoding: 'utf8', signal: options.signal },
    );
    const entry: CachedTextFile = { path, text, mtimeMs: info.mtimeMs, size: info.size };
    this.#entries.set(path, entry);
    this.#misses += 1;
    return entry;
  }

  /** Forgets every cached file. */
  clear(): void {
    this.#entries.clear();
  }
}
