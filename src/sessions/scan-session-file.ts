import { type FileHandle, open } from 'node:fs/promises';
import { assertNever } from '../core/assert-never.js';
import type { Message } from '../core/message.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { type FileLine, readFileLines } from './file-lines.js';
import { type SessionHeader, sessionHeaderOf } from './session-header.js';
import { parseSessionLine, type SessionLine } from './session-line.js';
import { TIMESTAMP_KEY } from './stamp-message.js';

/** A line of a session file that did not load as it is on disk. */
export type LineProblem = {
  /** 1-based line number. */
  readonly line: number;
  readonly offset: number;
  readonly length: number;
  /** `unreadable`: skipped; `invalid-utf8`: loaded with U+FFFD in place of the bad bytes (kept on disk). */
  readonly kind: 'unreadable' | 'invalid-utf8';
  readonly reason: string;
};

/** What a scan found besides the messages (which go to `onMessage`). */
export type SessionFileScan = {
  /** The first metadata record; undefined when the file has none. */
  readonly header: SessionHeader | undefined;
  /** Where the first metadata record is. */
  readonly headerLine: FileLine | undefined;
  /** The first provider-state record's `state`, wrapped so that a stored `null` is told from none. */
  readonly providerState: { readonly state: unknown; readonly line: FileLine } | undefined;
  readonly messageCount: number;
  /** The last message's `timestamp`, when it has one (appends never rewrite the header's `updated_at`). */
  readonly lastTimestamp: string | undefined;
  readonly problems: readonly LineProblem[];
  /** Lines read, blank ones included (the number of the last line). */
  readonly lines: number;
  /** Bytes read up to the end of the last line ended by `\n`: where a later scan of appended lines starts. */
  readonly endOffset: number;
};

/** Options for {@link scanSessionFile}. */
export type ScanSessionFileOptions = {
  /** Lines longer than this are reported as unreadable, never read into memory. */
  readonly maxLineBytes: number;
  /**
   * An earlier scan of the same file that ended on a whole line (`endOffset`): only the lines after
   * it are read, and the result is that scan continued, which is what a scan of the whole file gives
   * when the file only had lines appended since (the caller must know that it did).
   */
  readonly after?: SessionFileScan;
  /** Receives each message in order, with its line and its index among the messages. */
  readonly onMessage: (entry: {
    readonly message: Message;
    readonly line: FileLine;
    readonly index: number;
  }) => void;
};

/**
 * Reads a nanobot session file line by line (never the whole file as one string), handing each message
 * to `onMessage`, skipping blank lines and reporting every line that cannot be read. It never writes.
 * Resolves to `undefined` when the file does not exist. A metadata or provider-state record after the
 * first is reported as unreadable.
 */
export async function scanSessionFile(
  file: string,
  options: ScanSessionFileOptions,
): Promise<SessionFileScan | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
  try {
    return await scanSessionHandle(handle, options);
  } finally {
    await handle.close();
  }
}

/** {@link scanSessionFile} on a file the caller has open (and keeps open). */
export async function scanSessionHandle(
  handle: FileHandle,
  options: ScanSessionFileOptions,
): Promise<SessionFileScan> {
  const { after } = options;
  const scan = new Scan(options.onMessage, after);
  const start = after === undefined ? {} : { from: after.endOffset, firstLine: after.lines + 1 };
  for await (const batch of readFileLines(handle, { ...options, ...start })) {
    for (const line of batch) scan.add(line, parseSessionLine(line, scan.messageCount));
  }
  return scan;
}

class Scan implements SessionFileScan {
  header: SessionHeader | undefined;
  headerLine: FileLine | undefined;
  providerState: { readonly state: unknown; readonly line: FileLine } | undefined;
  messageCount = 0;
  lastTimestamp: string | undefined;
  readonly problems: LineProblem[] = [];
  lines = 0;
  endOffset = 0;
  readonly #onMessage: ScanSessionFileOptions['onMessage'];

  constructor(onMessage: ScanSessionFileOptions['onMessage'], after?: SessionFileScan) {
    this.#onMessage = onMessage;
    if (after !== undefined) {
      this.header = after.header;
      this.headerLine = after.headerLine;
      this.providerState = after.providerState;
      this.messageCount = after.messageCount;
      this.lastTimestamp = after.lastTimestamp;
      this.problems.push(...after.problems);
      this.lines = after.lines;
      this.endOffset = after.endOffset;
    }
  }

  add(line: FileLine, parsed: SessionLine): void {
    this.lines = line.number;
    if (line.terminated) this.endOffset = line.offset + line.length + 1;
    switch (parsed.kind) {
      case 'blank':
        return;
      case 'message':
        this.#onMessage({ message: parsed.message, line, index: this.messageCount });
        this.messageCount += 1;
        this.lastTimestamp = timestampOf(parsed.message);
        if (parsed.invalidUtf8)
          this.#problem(line, { kind: 'invalid-utf8', reason: 'holds bytes that are not UTF-8' });
        return;
      case 'corrupt':
        this.#problem(line, { kind: 'unreadable', reason: parsed.reason });
        return;
      case 'metadata':
        if (this.header === undefined) {
          this.header = sessionHeaderOf(parsed.value);
          this.headerLine = kept(line);
        } else this.#problem(line, { kind: 'unreadable', reason: 'a second metadata record' });
        return;
      case 'provider_state':
        if (this.providerState === undefined)
          this.providerState = { state: parsed.value['state'], line: kept(line) };
        else this.#problem(line, { kind: 'unreadable', reason: 'a second provider_state record' });
        return;
      default:
        assertNever(parsed);
    }
  }

  #problem(line: FileLine, problem: Pick<LineProblem, 'kind' | 'reason'>): void {
    this.problems.push({ line: line.number, offset: line.offset, length: line.length, ...problem });
  }
}

function timestampOf(message: Message): string | undefined {
  const value = message.metadata?.[TIMESTAMP_KEY];
  return typeof value === 'string' ? value : undefined;
}

/** A line whose bytes outlive the read buffer they came from. */
function kept(line: FileLine): FileLine {
  return line.bytes === undefined ? line : { ...line, bytes: Buffer.from(line.bytes) };
}
