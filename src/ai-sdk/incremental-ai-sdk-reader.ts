import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { AiSdkMessageLike, AiSdkPartLike } from './ai-sdk-message-like.js';
import type { AiSdkOrigins } from './ai-sdk-origins.js';
import { checkAiSdkMessage } from './check-ai-sdk-message.js';
import { AiSdkMessageReader } from './read-ai-sdk-messages.js';

/** What {@link IncrementalAiSdkReader.read} returns. */
export type IncrementalAiSdkRead = {
  /** The leading messages, then the messages read: the same array as last time when nothing changed. */
  readonly messages: readonly Message[];
  readonly warnings: readonly AdapterWarning[];
  readonly origins: AiSdkOrigins;
  readonly readParts: ReadonlySet<AiSdkPartLike>;
  /** Messages read that the writer found free of lone surrogates (forgotten when the reader starts over). */
  readonly cleanSources: WeakSet<object>;
  /** The positions in `messages` of the messages read from `source` (none when it is not in the list). */
  readonly positionsOf: (source: unknown) => readonly number[];
};

/**
 * Reads the AI SDK messages of the steps of one run, converting each message once: a list that
 * starts with the list read last time (the same objects, in the same order) has only its new messages
 * read, so a step costs a comparison per old message and a conversion per new one, and the ctxloom
 * messages of old ones are the same objects as before (so counts and decisions cached by identity
 * downstream are reused). Anything else (a message replaced, removed or moved) reads the whole list
 * again. The result equals `readAiSdkMessages` on the list, ids included (ids made by `generateId`
 * are made once per message of the run).
 *
 * Edits in place: a message whose `role`, `content` (the string or the array), number of parts or
 * `providerOptions` object is no longer what was read is read again. An edit inside a part (a part's
 * text or a tool output changed in place) is not seen: the AI SDK treats messages as immutable;
 * replace an edited message with a new object.
 */
export class IncrementalAiSdkReader {
  readonly #options: { readonly generateId?: IdGenerator | undefined; readonly format: string };
  #reader: AiSdkMessageReader;
  #sources: AiSdkMessageLike[] = [];
  /**
   * What each message read had: the fields compared to tell an in-place edit (kept side by side, not
   * as one object per message, so the comparison walks four flat arrays).
   */
  #roles: string[] = [];
  #contents: unknown[] = [];
  #partCounts: number[] = [];
  #providerOptions: unknown[] = [];
  /** For each message read, the position of its first ctxloom message in the reader's list. */
  #starts: number[] = [];
  #bySource = new Map<object, number | readonly number[]>();
  #clean = new WeakSet<object>();
  /** The list last returned, with the leading messages it starts with; none after a start over. */
  #built:
    | {
        readonly leading: readonly Message[];
        readonly messages: readonly Message[];
        readonly warnings: readonly AdapterWarning[];
      }
    | undefined;

  constructor(options: { readonly generateId?: IdGenerator | undefined; readonly format: string }) {
    this.#options = options;
    this.#reader = new AiSdkMessageReader(options);
  }

  /**
   * Reads `input` after the `leading` messages (a system prompt to count, given as is).
   * @throws ContextError `INVALID_INPUT` naming the path of a field that is not an AI SDK message.
   */
  read(input: readonly unknown[], leading: readonly Message[] = []): IncrementalAiSdkRead {
    if (!this.#extends(input)) this.#reset();
    const from = this.#sources.length;
    try {
      for (let index = from; index < input.length; index += 1) this.#append(input[index], index);
    } catch (error) {
      // A message that cannot be read may have been read in part: start over on the next call.
      this.#reset();
      throw error;
    }
    let built = this.#built;
    if (built === undefined || from !== input.length || leading !== built.leading) {
      built = {
        leading,
        messages: [...leading, ...this.#reader.messages],
        warnings: [...this.#reader.warnings],
      };
      this.#built = built;
    }
    return {
      messages: built.messages,
      warnings: built.warnings,
      origins: this.#reader.origins(),
      readParts: this.#reader.readParts,
      cleanSources: this.#clean,
      positionsOf: (source) => this.#positionsOf(source),
    };
  }

  #append(raw: unknown, index: number): void {
    const source = checkAiSdkMessage(raw, { index, format: this.#options.format });
    this.#starts.push(this.#reader.messages.length);
    this.#reader.read(source, index);
    this.#sources.push(source);
    this.#roles.push(source.role);
    this.#contents.push(source.content);
    this.#partCounts.push(partCountOf(source));
    this.#providerOptions.push(source.providerOptions);
    const positions = this.#bySource.get(source);
    // One index for a message that appears once (the usual case), a list for one that repeats.
    if (positions === undefined) this.#bySource.set(source, index);
    else this.#bySource.set(source, [...(typeof positions === 'number' ? [positions] : positions), index]);
  }

  /** Whether `input` starts with every message read so far, none edited in place. */
  #extends(input: readonly unknown[]): boolean {
    const sources = this.#sources;
    if (input.length < sources.length) return false;
    for (let index = 0; index < sources.length; index += 1) {
      const source = sources[index] as AiSdkMessageLike; // index < sources.length
      if (
        input[index] !== source ||
        source.content !== this.#contents[index] ||
        source.role !== this.#roles[index] ||
        source.providerOptions !== this.#providerOptions[index] ||
        partCountOf(source) !== this.#partCounts[index]
      )
        return false;
    }
    return true;
  }

  #positionsOf(source: unknown): readonly number[] {
    if (typeof source !== 'object' || source === null) return [];
    const found = this.#bySource.get(source) ?? [];
    const indexes = typeof found === 'number' ? [found] : found;
    const offset = this.#built?.leading.length ?? 0;
    const total = this.#reader.messages.length;
    return indexes.flatMap((index) => {
      const start = this.#starts[index] ?? total;
      const end = this.#starts[index + 1] ?? total;
      return Array.from({ length: end - start }, (_, position) => offset + start + position);
    });
  }

  #reset(): void {
    this.#reader = new AiSdkMessageReader(this.#options);
    this.#sources = [];
    this.#roles = [];
    this.#contents = [];
    this.#partCounts = [];
    this.#providerOptions = [];
    this.#starts = [];
    this.#bySource = new Map();
    this.#clean = new WeakSet();
    this.#built = undefined;
  }
}

/** The number of parts of a message (-1 for string content). */
function partCountOf(source: AiSdkMessageLike): number {
  return typeof source.content === 'string' ? -1 : source.content.length;
}
