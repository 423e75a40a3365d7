import { type FileHandle, open } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { Message } from '../core/message.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import type { FileLine } from './file-lines.js';
import { createFileSink, type FileSink } from './file-sink.js';
import { replaceFileAtomically } from './replace-file-atomically.js';
import { type LineProblem, type SessionFileScan, scanSessionHandle } from './scan-session-file.js';
import { formatHeaderLine } from './session-header.js';
import { formatMessageLine } from './session-line.js';

/** The metadata record a rewrite writes. */
export type HeaderFields = Parameters<typeof formatHeaderLine>[0];

/** What {@link SessionFileRewrite.decide} returns. */
export type RewriteDecision = {
  /** The new metadata record, or `keep` to copy the current one as it is. */
  readonly header: HeaderFields | 'keep';
  /** Whether the `provider_state` record stays (copied as it is) or goes. */
  readonly providerState: 'keep' | 'drop';
};

/** What {@link rewriteSessionFile} changes; every other message line is copied byte for byte. */
export type SessionFileRewrite = {
  /** Decides from the file as it is and the message count after the rewrite; throw to abort without writing. */
  readonly decide: (before: SessionFileScan, after: { readonly messageCount: number }) => RewriteDecision;
  /**
   * The new message list. A message that decodes equal to a line of the file (same id, same fields) is
   * written as that line's bytes; others are written as nanobot dicts. @default every message line as it is
   */
  readonly messages?: readonly Message[];
};

/** What a rewrite did. */
export type SessionFileRewriteResult = {
  /** The file as it was before. */
  readonly before: SessionFileScan;
  /** Unreadable lines moved to the `.corrupt` file (with their original bytes). */
  readonly moved: readonly LineProblem[];
  readonly messageCount: number;
};

type Piece = { readonly line: Pick<FileLine, 'offset' | 'length'> } | { readonly text: string };

const NEWLINE = Buffer.from('\n');
const NO_FILE: SessionFileScan = {
  header: undefined,
  headerLine: undefined,
  providerState: undefined,
  messageCount: 0,
  lastTimestamp: undefined,
  problems: [],
  lines: 0,
  endOffset: 0,
};

/**
 * Rewrites a session file atomically in two streaming passes (memory stays at a chunk per line, not
 * the file): a scan that finds which lines to keep, then a copy. Unreadable lines are appended, with
 * their original bytes, to `corruptFile` before the new file replaces the old one, so nothing is ever
 * destroyed. A missing file is created.
 */
export async function rewriteSessionFile(
  file: string,
  options: {
    readonly rewrite: SessionFileRewrite;
    readonly corruptFile: string;
    readonly maxLineBytes: number;
  },
): Promise<SessionFileRewriteResult> {
  const { rewrite } = options;
  const plan = new Plan(rewrite.messages);
  const old = await openIfExists(file);
  try {
    const before =
      old === undefined
        ? NO_FILE
        : await scanSessionHandle(old, {
            maxLineBytes: options.maxLineBytes,
            onMessage: (entry) => plan.see(entry),
          });
    const pieces = plan.pieces();
    const messageCount = rewrite.messages?.length ?? before.messageCount;
    const decision = rewrite.decide(before, { messageCount });
    const moved = before.problems.filter((problem) => problem.kind === 'unreadable');
    await replaceFileAtomically(file, (sink) =>
      writeSessionFile(sink, { old, before, decision, pieces, moved, corruptFile: options.corruptFile }),
    );
    return { before, moved, messageCount };
  } finally {
    await old?.close();
  }
}

/** Writes the new file: metadata record, provider state, messages; then moves the unreadable lines aside. */
async function writeSessionFile(
  sink: FileSink,
  plan: {
    readonly old: FileHandle | undefined;
    readonly before: SessionFileScan;
    readonly decision: RewriteDecision;
    readonly pieces: readonly Piece[];
    readonly moved: readonly LineProblem[];
    readonly corruptFile: string;
  },
): Promise<void> {
  const { old, before, decision } = plan;
  if (decision.header !== 'keep') await sink.write(`${formatHeaderLine(decision.header)}\n`);
  else if (before.headerLine !== undefined && old !== undefined)
    await copyLine(sink, { from: old, line: before.headerLine });
  const state = before.providerState?.line.bytes;
  if (decision.providerState === 'keep' && state !== undefined)
    await sink.write(Buffer.concat([state, NEWLINE]));
  for (const piece of plan.pieces) {
    if ('text' in piece) await sink.write(`${piece.text}\n`);
    else if (old !== undefined) await copyLine(sink, { from: old, line: piece.line });
  }
  if (old !== undefined && plan.moved.length > 0)
    await appendLines(plan.corruptFile, { from: old, lines: plan.moved });
}

/** Decides, during the scan, which lines the new file copies. */
class Plan {
  readonly #targets: readonly Message[] | undefined;
  readonly #byId = new Map<string, Message>();
  readonly #reused = new Map<Message, Pick<FileLine, 'offset' | 'length'>>();
  readonly #kept: { offset: number; length: number }[] = [];

  constructor(targets: readonly Message[] | undefined) {
    this.#targets = targets;
    for (const message of targets ?? []) if (!this.#byId.has(message.id)) this.#byId.set(message.id, message);
  }

  see(entry: { readonly message: Message; readonly line: FileLine }): void {
    const { line } = entry;
    if (this.#targets === undefined) {
      this.#keep(line);
      return;
    }
    const target = this.#byId.get(entry.message.id);
    if (target !== undefined && !this.#reused.has(target) && isDeepStrictEqual(entry.message, target))
      this.#reused.set(target, { offset: line.offset, length: line.length });
  }

  /** The message lines of the new file, in order; adjacent copied lines are merged into one range. */
  pieces(): readonly Piece[] {
    if (this.#targets === undefined) return this.#kept.map((line) => ({ line }));
    const pieces: Piece[] = [];
    const kept: { offset: number; length: number }[] = [];
    for (const message of this.#targets) {
      const line = this.#reused.get(message);
      if (line === undefined) {
        pieces.push(...kept.splice(0).map((range) => ({ line: range })), {
          text: formatMessageLine(message),
        });
      } else merge(kept, line);
    }
    pieces.push(...kept.map((range) => ({ line: range })));
    return pieces;
  }

  #keep(line: FileLine): void {
    merge(this.#kept, line);
  }
}

/** Adds a line to a list of byte ranges, extending the last range when the line directly follows it. */
function merge(
  ranges: { offset: number; length: number }[],
  line: Pick<FileLine, 'offset' | 'length'>,
): void {
  const last = ranges.at(-1);
  if (last !== undefined && last.offset + last.length + 1 === line.offset) last.length += line.length + 1;
  else ranges.push({ offset: line.offset, length: line.length });
}

async function copyLine(
  sink: FileSink,
  source: { readonly from: FileHandle; readonly line: Pick<FileLine, 'offset' | 'length'> },
): Promise<void> {
  await sink.copy(source.from, source.line);
  await sink.write(NEWLINE);
}

/** Appends lines of `from`, byte for byte and one per line, to `file` (created with mode 0600), and fsyncs it. */
async function appendLines(
  file: string,
  source: { readonly from: FileHandle; readonly lines: readonly Pick<FileLine, 'offset' | 'length'>[] },
): Promise<void> {
  const handle = await open(file, 'a', 0o600);
  try {
    const sink = createFileSink(handle);
    for (const line of source.lines) await copyLine(sink, { from: source.from, line });
    await sink.flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function openIfExists(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, 'r');
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
}
