import type { FileHandle } from 'node:fs/promises';

/** One line of a file, as bytes (never decoded here), with where it is. */
export type FileLine = {
  /** 1-based line number. */
  readonly number: number;
  /** Byte offset of the line's first byte. */
  readonly offset: number;
  /** Length in bytes, without the `\n`. */
  readonly length: number;
  /**
   * The line's bytes; absent when the line is longer than `maxLineBytes` (it was skipped, not read
   * into memory). They may share memory with the read buffer, which is reused once the batch is
   * done: copy them to keep them longer.
   */
  readonly bytes?: Buffer;
  /** False for a last line with no `\n` after it (a writer may have been killed mid-line). */
  readonly terminated: boolean;
};

/** Options for {@link readFileLines}. */
export type ReadFileLinesOptions = {
  /** Lines longer than this are reported without their bytes. */
  readonly maxLineBytes: number;
  /** Read size. @default 1 MiB */
  readonly chunkBytes?: number;
  /** Where to start reading (a line boundary). @default 0 */
  readonly from?: number;
  /** The number of the line that starts at `from`. @default 1 */
  readonly firstLine?: number;
};

const DEFAULT_CHUNK = 1 << 20;

/** The default longest line the session readers decode: 256 MiB, well under V8's longest string. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Reads a file line by line in fixed-size chunks, yielding each chunk's complete lines as one batch,
 * so memory stays at one chunk plus the longest line (at most `maxLineBytes`) whatever the file size.
 * A batch's line bytes are valid until the next batch is requested.
 */
export async function* readFileLines(
  handle: FileHandle,
  options: ReadFileLinesOptions,
): AsyncGenerator<readonly FileLine[]> {
  const chunk = Buffer.allocUnsafe(options.chunkBytes ?? DEFAULT_CHUNK);
  const line = new PendingLine(options.maxLineBytes, {
    offset: options.from ?? 0,
    number: (options.firstLine ?? 1) - 1,
  });
  let position = options.from ?? 0;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    const view = chunk.subarray(0, bytesRead);
    const batch: FileLine[] = [];
    let start = 0;
    for (let end = view.indexOf(0x0a); end !== -1; end = view.indexOf(0x0a, start)) {
      line.add(view.subarray(start, end), true);
      batch.push(line.finish({ terminated: true, next: position + end + 1 }));
      start = end + 1;
    }
    line.add(view.subarray(start), false);
    position += bytesRead;
    if (batch.length > 0) yield batch;
  }
  if (line.length > 0) yield [line.finish({ terminated: false, next: position })];
}

/** The line being assembled across chunks; drops its bytes once it exceeds the limit. */
class PendingLine {
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #offset: number;
  /** The number of the last line finished. */
  #number: number;
  length = 0;

  constructor(maxBytes: number, start: { readonly offset: number; readonly number: number }) {
    this.#maxBytes = maxBytes;
    this.#offset = start.offset;
    this.#number = start.number;
  }

  /** Adds bytes of the current chunk; `final` when the line ends in this chunk (no copy needed then). */
  add(bytes: Buffer, final: boolean): void {
    if (bytes.length === 0) return;
    this.length += bytes.length;
    if (this.length > this.#maxBytes) this.#parts = [];
    // A line that continues into the next read must not keep a view of the reused chunk buffer.
    else this.#parts.push(final ? bytes : Buffer.from(bytes));
  }

  finish(end: { readonly terminated: boolean; readonly next: number }): FileLine {
    this.#number += 1;
    const tooLong = this.length > this.#maxBytes;
    const bytes = this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts, this.length);
    const line: FileLine = {
      number: this.#number,
      offset: this.#offset,
      length: this.length,
      terminated: end.terminated,
      ...(tooLong || bytes === undefined ? {} : { bytes }),
    };
    this.#parts = [];
    this.#offset = end.next;
    this.length = 0;
    return line;
  }
}
