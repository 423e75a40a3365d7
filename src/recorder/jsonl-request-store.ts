import { appendFile, mkdir, readdir, readFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { KeyedQueue } from '../sessions/keyed-queue.js';
import { sessionFileName } from '../sessions/session-file-name.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { parseRecordLines } from './parse-record-lines.js';
import type { RecorderRecord } from './request-record.js';
import type { ReadRequestRecordsOptions, RequestRecordStore } from './request-record-store.js';

/** Options for {@link JsonlRequestStore}. */
export type JsonlRequestStoreOptions = {
  /** The folder of the logs: one `<session file name>` per session (and its previous generation `….1.jsonl`). */
  readonly dir: string;
  /** A log past this size is rotated: it becomes the previous generation, replacing the older one. @default 16 MiB */
  readonly maxBytes?: number;
  /** A log past this many lines is rotated the same way. @default 5000 */
  readonly maxRecords?: number;
};

/** The keys of {@link JsonlRequestStoreOptions}, for `checkOptions`. @internal */
export const JSONL_REQUEST_STORE_OPTION_KEYS = {
  dir: true,
  maxBytes: true,
  maxRecords: true,
} as const satisfies OptionKeys<JsonlRequestStoreOptions>;

/** Defaults of {@link JsonlRequestStoreOptions}. */
export const DEFAULT_JSONL_REQUEST_STORE: Readonly<{ maxBytes: number; maxRecords: number }> = Object.freeze({
  maxBytes: 16 * 1024 * 1024,
  maxRecords: 5_000,
});

/** The folder of the request logs beside a sessions folder. */
const REQUESTS_DIR = 'requests';
const PREVIOUS = '.1.jsonl';

type Size = { bytes: number; records: number };

/**
 * Request logs as JSON lines, one file per session, named like the session's file (base64url of the
 * key) in a folder of their own. Size is bounded by rotation: when a log passes `maxBytes` or
 * `maxRecords`, it is renamed to `<name>.1.jsonl` (replacing the older generation) and a new one
 * starts, so a session never holds more than twice the limit and no write rewrites a file. One
 * process writes a session's log at a time.
 */
export class JsonlRequestStore implements RequestRecordStore {
  readonly specificationVersion = 'v1';
  readonly id = 'jsonl';
  readonly dir: string;
  readonly #limits: { readonly maxBytes: number; readonly maxRecords: number };
  readonly #queue = new KeyedQueue();
  readonly #sizes = new Map<string, Size>();

  constructor(options: JsonlRequestStoreOptions) {
    checkOptions(options, { where: 'new JsonlRequestStore options', known: JSONL_REQUEST_STORE_OPTION_KEYS });
    this.dir = options.dir;
    this.#limits = { ...DEFAULT_JSONL_REQUEST_STORE, ...definedLimits(options) };
  }

  /** The store beside a sessions folder: `<sessionsDir>/requests/`. */
  static besideSessions(
    sessionsDir: string,
    options: Omit<JsonlRequestStoreOptions, 'dir'> = {},
  ): JsonlRequestStore {
    return new JsonlRequestStore({ ...options, dir: path.join(sessionsDir, REQUESTS_DIR) });
  }

  append(record: RecorderRecord): Promise<void> {
    const file = this.#file(record.sessionKey);
    return this.#queue.run(file, async () => {
      const line = `${JSON.stringify(record)}\n`;
      const bytes = Buffer.byteLength(line);
      const size = this.#sizes.get(file) ?? (await measure(file));
      if (
        size.records > 0 &&
        (size.bytes + bytes > this.#limits.maxBytes || size.records >= this.#limits.maxRecords)
      ) {
        await rename(file, previousOf(file));
        size.bytes = 0;
        size.records = 0;
      }
      await mkdir(this.dir, { recursive: true });
      await appendFile(file, line, 'utf8');
      size.bytes += bytes;
      size.records += 1;
      this.#sizes.set(file, size);
    });
  }

  async read(
    sessionKey: string,
    _options: ReadRequestRecordsOptions = {},
  ): Promise<readonly RecorderRecord[]> {
    const file = this.#file(sessionKey);
    const older = await readOrEmpty(previousOf(file));
    const current = await readOrEmpty(file);
    return [...parseRecordLines(older, previousOf(file)), ...parseRecordLines(current, file)].filter(
      (record) => record.sessionKey === sessionKey,
    );
  }

  async listSessions(_options: ReadRequestRecordsOptions = {}): Promise<readonly string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (isMissingFileError(error)) return [];
      throw error;
    }
    const keys = new Set<string>();
    for (const name of names.filter((entry) => entry.endsWith('.jsonl') && !entry.endsWith(PREVIOUS))) {
      const [first] = parseRecordLines(firstLine(await readOrEmpty(path.join(this.dir, name))), name);
      if (first !== undefined) keys.add(first.sessionKey);
    }
    return [...keys].sort();
  }

  /** The size and modification time of the session's log. */
  async version(sessionKey: string): Promise<string> {
    try {
      const { size, mtimeMs } = await stat(this.#file(sessionKey));
      return `${size}:${mtimeMs}`;
    } catch (error) {
      if (isMissingFileError(error)) return 'none';
      throw error;
    }
  }

  async close(): Promise<void> {}

  #file(sessionKey: string): string {
    return path.join(this.dir, sessionFileName(sessionKey));
  }
}

function previousOf(file: string): string {
  return `${file.slice(0, -'.jsonl'.length)}${PREVIOUS}`;
}

async function measure(file: string): Promise<Size> {
  try {
    const { size } = await stat(file);
    const text = await readFile(file);
    let records = 0;
    for (let index = text.indexOf(0x0a); index !== -1; index = text.indexOf(0x0a, index + 1)) records += 1;
    return { bytes: size, records };
  } catch (error) {
    if (isMissingFileError(error)) return { bytes: 0, records: 0 };
    throw error;
  }
}

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isMissingFileError(error)) return '';
    throw error;
  }
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? '' : text.slice(0, end + 1);
}

function definedLimits(options: JsonlRequestStoreOptions): { maxBytes?: number; maxRecords?: number } {
  for (const key of ['maxBytes', 'maxRecords'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `JsonlRequestStore ${key} must be a whole number ≥ 1, got ${value}.`,
      });
    }
  }
  return {
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.maxRecords === undefined ? {} : { maxRecords: options.maxRecords }),
  };
}
