import type { FileHandle } from 'node:fs/promises';

/** Buffered sequential writes to an open file. */
export type FileSink = {
  /** Appends bytes (or UTF-8 text). */
  write(data: string | Uint8Array): Promise<void>;
  /** Appends `length` bytes of `from`, starting at `offset`, a chunk at a time (never all in memory). */
  copy(from: FileHandle, range: { readonly offset: number; readonly length: number }): Promise<void>;
  /** Writes out what is buffered. */
  flush(): Promise<void>;
};

const BUFFER_BYTES = 1 << 20;

/** A {@link FileSink} on `handle` (opened for writing or appending) with a 1 MiB buffer. */
export function createFileSink(handle: FileHandle): FileSink {
  return new BufferedSink(handle);
}

class BufferedSink implements FileSink {
  readonly #handle: FileHandle;
  readonly #buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  #used = 0;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  async write(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (this.#used + bytes.length > BUFFER_BYTES) await this.flush();
    if (bytes.length >= BUFFER_BYTES) {
      await writeAll(this.#handle, bytes);
      return;
    }
    this.#buffer.set(bytes, this.#used);
    this.#used += bytes.length;
  }

  async copy(from: FileHandle, range: { readonly offset: number; readonly length: number }): Promise<void> {
    await this.flush();
    const chunk = Buffer.allocUnsafe(Math.min(BUFFER_BYTES, Math.max(1, range.length)));
    for (let done = 0; done < range.length; ) {
      const { bytesRead } = await from.read(
        chunk,
        0,
        Math.min(chunk.length, range.length - done),
        range.offset + done,
      );
      if (bytesRead === 0)
        throw new Error(`The file ended ${range.length - done} bytes early while copying a line.`);
      await writeAll(this.#handle, chunk.subarray(0, bytesRead));
      done += bytesRead;
    }
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    await writeAll(this.#handle, this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }
}

/** `write` may write less than asked (rarely, for regular files); loop until every byte is out. */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}
