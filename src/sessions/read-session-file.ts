import path from 'node:path';
import type { Message } from '../core/message.js';
import { DEFAULT_MAX_LINE_BYTES } from './file-lines.js';
import { latestTime } from './latest-time.js';
import { type LineProblem, type SessionFileScan, scanSessionFile } from './scan-session-file.js';
import { sessionKeyOfFile } from './session-file-name.js';
import { validLastConsolidated } from './session-header.js';
import type { SessionRecord } from './session-store.js';
import { emptySessionRecord } from './session-store.js';

/** Options for {@link readSessionFile}. */
export type ReadSessionFileOptions = {
  /** The key to report. @default the metadata record's `key`, else the key the file name encodes */
  readonly sessionKey?: string;
  /** A longer line is unreadable (reported, never read into memory). @default 256 MiB */
  readonly maxLineBytes?: number;
};

/** A session read from one file: the record, plus the lines that could not be read. */
export type SessionFileRecord = SessionRecord & {
  /** The file read. */
  readonly file: string;
  /** Lines skipped (torn, not JSON, unknown role, too long), with why; they are still in the file. */
  readonly unreadableLines: readonly { readonly line: number; readonly reason: string }[];
};

/**
 * Reads one nanobot session file (current or legacy name, any folder) line by line into a session
 * record, never writing: torn, corrupt and non-UTF-8 lines are reported in `warnings` (and unreadable
 * ones in `unreadableLines`). A missing file, or one whose every line is unreadable, reads as
 * `exists: false`, as nanobot treats it.
 */
export async function readSessionFile(
  file: string,
  options: ReadSessionFileOptions = {},
): Promise<SessionFileRecord> {
  const messages: Message[] = [];
  const scan = await scanSessionFile(file, {
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    onMessage: ({ message }) => messages.push(message),
  });
  return sessionFileRecord(file, { scan, messages, sessionKey: options.sessionKey });
}

/**
 * The session record of a scan of `file` (`undefined`: the file does not exist) and the messages it
 * found. @internal
 */
export function sessionFileRecord(
  file: string,
  read: {
    readonly scan: SessionFileScan | undefined;
    readonly messages: readonly Message[];
    readonly sessionKey?: string | undefined;
  },
): SessionFileRecord {
  const { scan, messages } = read;
  const key =
    read.sessionKey ?? sessionKeyOfFile(path.basename(file), scan?.header?.key) ?? path.basename(file);
  if (scan === undefined) return { ...emptySessionRecord(key), file, unreadableLines: [] };
  const warnings = scan.problems.map((problem) => describe(problem, { key, file }));
  const unreadableLines = scan.problems
    .filter((problem) => problem.kind === 'unreadable')
    .map(({ line, reason }) => ({ line, reason }));
  if (scan.header === undefined && messages.length === 0 && scan.problems.length > 0)
    return { ...emptySessionRecord(key, warnings), file, unreadableLines };
  const { header } = scan;
  const updatedAt = latestTime(header?.updatedAt, scan.lastTimestamp);
  return {
    key,
    messages,
    metadata: header?.metadata ?? {},
    lastConsolidated: validLastConsolidated(header?.lastConsolidated, messages.length),
    ...(header?.createdAt === undefined ? {} : { createdAt: header.createdAt }),
    ...(updatedAt === undefined ? {} : { updatedAt }),
    exists: true,
    warnings,
    file,
    unreadableLines,
  };
}

function describe(problem: LineProblem, where: { readonly key: string; readonly file: string }): string {
  const session = `Session ${JSON.stringify(where.key)}: line ${problem.line}`;
  if (problem.kind === 'invalid-utf8')
    return `${session} ${problem.reason}; it loads with U+FFFD in their place, and the bytes on disk are kept.`;
  return `${session} skipped (${problem.reason}); ${where.file} is unchanged: 'ctxloom session repair' or the next rewrite moves the line to ${where.file}.corrupt.`;
}
