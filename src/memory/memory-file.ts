import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { atomicWriteFile } from '../workspace/atomic-write.js';
import { readTextOrEmpty } from '../workspace/fs-helpers.js';

/** Options for {@link MemoryFile}. */
export type MemoryFileOptions = {
  /** The agent workspace; the file is `<workspace>/memory/MEMORY.md`. */
  readonly workspace: string;
};

/**
 * `memory/MEMORY.md`: the long-term facts injected into the system prompt and kept current by the
 * memory writer. Reads return `''` when the file is missing; writes are atomic (temp file, fsync,
 * rename), so a reader never sees half a file.
 */
export class MemoryFile {
  /** The absolute path of MEMORY.md. */
  readonly path: string;

  constructor(options: MemoryFileOptions) {
    this.path = path.join(options.workspace, 'memory', 'MEMORY.md');
  }

  /** The file's text, or `''` when it does not exist. */
  async read(): Promise<string> {
    return readTextOrEmpty(this.path);
  }

  /** Replaces the file's text atomically, creating `memory/` if needed. */
  async write(content: string): Promise<void> {
    await mkdir(path.dirname(this.path), { recursive: true });
    await atomicWriteFile(this.path, content);
  }
}
