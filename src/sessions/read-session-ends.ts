import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { isRecord } from '../core/is-record.js';
import { type SessionHeader, sessionHeaderOf } from './session-header.js';

/** The first and last lines of a session file: enough to list it without reading the messages. */
export type SessionFileEnds = {
  /** The metadata record when the first line is one. */
  readonly header?: SessionHeader;
  /** Why the first line is not a readable metadata record, when it looks like it should be. */
  readonly headerProblem?: string;
  /** The `timestamp` of the last message line (appends never rewrite the header's `updated_at`). */
  readonly lastTimestamp?: string;
  readonly sizeBytes: number;
};

const FIRST_READ = 64 * 1024;

/**
 * Reads a session file's first line (the metadata record) and its last message line, reading at most
 * a few chunks from each end whatever the file size.
 */
export async function readSessionEnds(
  file: string,
  options: { readonly maxLineBytes: number },
): Promise<SessionFileEnds> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const first = await firstLine(handle, { size, maxBytes: options.maxLineBytes });
    const lastTimestamp = await lastMessageTimestamp(handle, { size, maxBytes: options.maxLineBytes });
    return { ...headerOf(first), ...(lastTimestamp === undefined ? {} : { lastTimestamp }), sizeBytes: size };
  } finally {
    await handle.close();
  }
}

type Ends = { readonly size: number; readonly maxBytes: number };

async function firstLine(handle: FileHandle, ends: Ends): Promise<Buffer | 'too-long'> {
  for (let length = FIRST_READ; ; length *= 4) {
    const bytes = await readAt(handle, { position: 0, length: Math.min(length, ends.size) });
    const newline = bytes.indexOf(0x0a);
    if (newline !== -1) return bytes.subarray(0, newline);
    if (bytes.length >= ends.size) return bytes;
    if (length >= ends.maxBytes) return 'too-long';
  }
}

/** The timestamp of the last line that is a message with one; a torn last line is passed over. */
async function lastMessageTimestamp(handle: FileHandle, ends: Ends): Promise<string | undefined> {
  for (let length = FIRST_READ; ; length *= 4) {
    const start = Math.max(0, ends.size - length);
    const lines = (await readAt(handle, { position: start, length: ends.size - start }))
      .toString('utf8')
      .split('\n');
    if (start > 0) lines.shift(); // cut in the middle
    for (const line of lines.reverse()) {
      const timestamp = messageTimestamp(line);
      if (timestamp !== undefined) return timestamp;
      if (line.trim() !== '' && parses(line)) return undefined; // the last record has no timestamp
    }
    if (start === 0 || length >= ends.maxBytes) return undefined;
  }
}

function headerOf(first: Buffer | 'too-long'): Pick<SessionFileEnds, 'header' | 'headerProblem'> {
  if (first === 'too-long') return { headerProblem: 'its first line is longer than the line limit' };
  const text = first.toString('utf8');
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && value['_type'] === 'metadata' ? { header: sessionHeaderOf(value) } : {};
  } catch {
    return text.includes('"_type"')
      ? { headerProblem: 'its metadata record (line 1) is not valid JSON' }
      : {};
  }
}

function messageTimestamp(line: string): string | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (!isRecord(value) || typeof value['role'] !== 'string') return undefined;
    return typeof value['timestamp'] === 'string' ? value['timestamp'] : undefined;
  } catch {
    return undefined;
  }
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

async function readAt(
  handle: FileHandle,
  range: { readonly position: number; readonly length: number },
): Promise<Buffer> {
  const buffer = Buffer.alloc(range.length);
  const { bytesRead } = await handle.read(buffer, 0, range.length, range.position);
  return buffer.subarray(0, bytesRead);
}
