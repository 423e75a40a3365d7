import { stat } from 'node:fs/promises';
import type { Message } from '../core/message.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { firstIndexOf, newestOf } from './last-messages.js';
import { type SessionFileRecord, sessionFileRecord } from './read-session-file.js';
import { type SessionFileScan, scanSessionFile } from './scan-session-file.js';

/** What identifies the bytes of a file without reading them: the file, its size and its change times. */
type FileState = {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
};

/** The last read of a file, and what the store knows of the file since. */
type KnownRead = {
  /** The file as it was read. */
  readonly state: FileState;
  readonly scan: SessionFileScan;
  /**
   * Every message read, oldest first. This reader's own list: it grows in place when the file is
   * extended and is never handed out (records get copies), so no record a load returned changes.
   */
  readonly messages: Message[];
  /** The record of a load of every message, once one was asked for. */
  whole?: SessionFileRecord;
  /**
   * The file after this store's own appends to it (and nothing else) since the read: its bytes are
   * the ones read, then whole lines this store wrote. Unset when the file may have changed otherwise.
   */
  appended?: FileState;
};

/**
 * Reads session files for one JSONL store and keeps the last read of the most recently read ones
 * (up to `maxBytes` of their files in all, and always the last one), so
 * that a long-lived agent that loads its session every turn reads only what was appended since: a
 * file exactly as last read (same file, size and change times) gives the same record back, and a
 * file that only had this store's own appends since gives the record extended with the lines after
 * the old end, parsed alone. Old messages come back as the same objects, so what a builder learnt
 * about them by identity is reused; a load of the newest `lastMessages` copies only those. Anything
 * else (another process's write, a rewrite, a torn last line, a file that changed while it was read)
 * reads the whole file again. The one assumption: a writer that does not take the store's lock
 * (nanobot itself) never rewrites a file in place to the same size within one tick of the file
 * system's change time. @internal
 */
export class SessionFileReads {
  readonly #known: KnownReads | undefined;
  readonly #maxLineBytes: number;

  constructor(options: { readonly maxBytes: number; readonly maxLineBytes: number }) {
    this.#known = options.maxBytes > 0 ? new KnownReads(options.maxBytes) : undefined;
    this.#maxLineBytes = options.maxLineBytes;
  }

  /**
   * The record of `file` (reported under `sessionKey`), read whole or extended from the last read,
   * with its newest `lastMessages` messages (all of them when `Infinity`).
   */
  async read(
    file: string,
    load: { readonly sessionKey: string; readonly lastMessages: number },
  ): Promise<SessionFileRecord> {
    const { sessionKey } = load;
    const known = this.#known;
    const before = known === undefined ? undefined : await stateOf(file);
    const last = known?.get(file);
    let read: KnownRead | undefined;
    if (before !== undefined && last !== undefined) {
      if (sameState(before, last.state)) read = last;
      else if (last.appended !== undefined && sameState(before, last.appended))
        read = await this.#extend(file, { last, before });
    }
    if (read === undefined) {
      known?.delete(file);
      const messages: Message[] = [];
      const scan = await this.#scan(file, { onMessage: (message) => messages.push(message) });
      read = scan === undefined ? undefined : await this.#remember(file, { before, scan, messages });
      if (read === undefined)
        return newestOf(sessionFileRecord(file, { scan, messages, sessionKey }), load.lastMessages);
    }
    return recordOf(read, { file, ...load });
  }

  /**
   * Before this store appends to `file` (under its lock): keeps the last read only when the file is
   * still as that read, or as this store's own appends left it, and ends on a whole line.
   */
  async beforeAppend(file: string): Promise<void> {
    const last = this.#known?.get(file);
    if (last === undefined) return;
    const now = await stateOf(file);
    const isOurs =
      now !== undefined &&
      (sameState(now, last.state) || (last.appended !== undefined && sameState(now, last.appended)));
    if (!isOurs || BigInt(last.scan.endOffset) !== last.state.size) this.#known?.delete(file);
  }

  /** After this store appended whole lines to `file`: the file is the last read plus those lines. */
  async afterAppend(file: string): Promise<void> {
    const last = this.#known?.get(file);
    if (last === undefined) return;
    const now = await stateOf(file);
    if (now === undefined) this.#known?.delete(file);
    else last.appended = now;
  }

  /** Forgets what was read of `file` (it was rewritten, replaced or deleted). */
  forget(file: string): void {
    this.#known?.delete(file);
  }

  /**
   * The last read extended with the lines after its end (its list grows in place; a read that then
   * fails is forgotten, list and all), or `undefined` when the file must be read whole.
   */
  async #extend(
    file: string,
    run: { readonly last: KnownRead; readonly before: FileState },
  ): Promise<KnownRead | undefined> {
    const added: Message[] = [];
    const scan = await this.#scan(file, {
      after: run.last.scan,
      onMessage: (message) => added.push(message),
    });
    if (scan === undefined) return undefined;
    const { messages } = run.last;
    for (const message of added) messages.push(message);
    return this.#remember(file, { before: run.before, scan, messages });
  }

  /** Scans `file` (or the part after `after`); `undefined` when it does not exist. */
  #scan(
    file: string,
    options: { readonly after?: SessionFileScan; readonly onMessage: (message: Message) => void },
  ): Promise<SessionFileScan | undefined> {
    return scanSessionFile(file, {
      maxLineBytes: this.#maxLineBytes,
      onMessage: ({ message }) => options.onMessage(message),
      ...(options.after === undefined ? {} : { after: options.after }),
    });
  }

  /** Keeps a read when the file did not change while it was read (`undefined` when it did). */
  async #remember(
    file: string,
    read: {
      readonly before: FileState | undefined;
      readonly scan: SessionFileScan;
      readonly messages: Message[];
    },
  ): Promise<KnownRead | undefined> {
    const known = this.#known;
    if (known === undefined || read.before === undefined) return undefined;
    const after = await stateOf(file);
    if (after === undefined || !sameState(after, read.before)) {
      known.delete(file);
      return undefined;
    }
    const kept = { state: read.before, scan: read.scan, messages: read.messages };
    known.set(file, kept);
    return kept;
  }
}

/** The record of a remembered read, with its newest `lastMessages` messages (copied). */
function recordOf(
  read: KnownRead,
  load: { readonly file: string; readonly sessionKey: string; readonly lastMessages: number },
): SessionFileRecord {
  const { messages } = read;
  const firstIndex = firstIndexOf(messages.length, load.lastMessages);
  if (firstIndex === 0) {
    read.whole ??= sessionFileRecord(load.file, {
      scan: read.scan,
      messages: messages.slice(),
      sessionKey: load.sessionKey,
    });
    return read.whole;
  }
  const record = sessionFileRecord(load.file, { scan: read.scan, messages, sessionKey: load.sessionKey });
  return { ...record, messages: messages.slice(firstIndex), firstIndex };
}

/**
 * The reads kept, least recently used first, evicted while their files' sizes add up to more than the
 * limit; the last read is always kept, so an agent with one session larger than the limit still loads
 * it turn after turn reading only what is new.
 */
class KnownReads {
  readonly #maxBytes: number;
  readonly #reads = new Map<string, KnownRead>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(file: string): KnownRead | undefined {
    const read = this.#reads.get(file);
    if (read !== undefined) {
      this.#reads.delete(file);
      this.#reads.set(file, read);
    }
    return read;
  }

  /** Keeps `read`, evicting the least recently used others while over the limit (never `read` itself). */
  set(file: string, read: KnownRead): void {
    this.delete(file);
    this.#reads.set(file, read);
    this.#bytes += Number(read.state.size);
    for (const [oldest, entry] of this.#reads) {
      if (this.#bytes <= this.#maxBytes || entry === read) break;
      this.delete(oldest);
    }
  }

  delete(file: string): void {
    const read = this.#reads.get(file);
    if (read === undefined) return;
    this.#reads.delete(file);
    this.#bytes -= Number(read.state.size);
  }
}

async function stateOf(file: string): Promise<FileState | undefined> {
  try {
    const info = await stat(file, { bigint: true });
    return { dev: info.dev, ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs };
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
}

function sameState(left: FileState, right: FileState): boolean {
  return (
    left.ino === right.ino &&
    left.dev === right.dev &&
    left.size === right.size &&
    left.mtimeNs === right.mtimeNs &&
    left.ctimeNs === right.ctimeNs
  );
}
