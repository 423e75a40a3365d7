import type { AdapterWarning } from '../adapters/adapter-warning.js';
import { checkMessages } from '../adapters/check-messages.js';
import { repairToolPairing, type ToolPairingPolicy } from '../adapters/repair-tool-pairing.js';
import { scrubWithWarning } from '../adapters/scrub-lone-surrogates.js';
import type { Message } from '../core/message.js';
import type { AiSdkDialect, AiSdkMessageLike, AiSdkPartLike } from './ai-sdk-message-like.js';
import type { AiSdkOrigins } from './ai-sdk-origins.js';
import { AI_SDK_PROVIDER_KEY } from './read-ai-sdk-messages.js';
import { originOf, readPartsOf, writeAiSdkMessage } from './write-ai-sdk-message.js';
import { writeToolResult } from './write-tool-result.js';

/** Options for {@link writeAiSdkMessages}. */
export type WriteAiSdkMessagesOptions = {
  readonly dialect: AiSdkDialect;
  /** What `readAiSdkMessages` recorded: unchanged messages come back as the original objects. */
  readonly origins?: AiSdkOrigins | undefined;
  /** The values of `origins.parts`, when the reader kept them (else collected from `origins`). */
  readonly readParts?: ReadonlySet<AiSdkPartLike> | undefined;
  /**
   * Original messages already found free of lone surrogates (by an earlier step of the run): given
   * back without a scan; the ones found clean now are added. @default every message is scanned
   */
  readonly cleanSources?: WeakSet<object> | undefined;
  /** Carry ids, names and metadata of new messages in `providerOptions.ctxloom`. */
  readonly carryMetadata: boolean;
  readonly toolPairing: ToolPairingPolicy;
};

/** What {@link writeAiSdkMessages} returns. */
export type WriteAiSdkMessagesResult = {
  readonly messages: readonly AiSdkMessageLike[];
  /** For each message, the AI SDK message it was written from (`undefined` for a new one). */
  readonly sources: readonly (AiSdkMessageLike | undefined)[];
  readonly warnings: readonly AdapterWarning[];
};

/**
 * Writes ctxloom messages as AI SDK messages of the dialect: the tool-call pairing is made legal
 * first (see `repairToolPairing`), each message is the original object, the original with what
 * ctxloom changed, or a new message (see `writeAiSdkMessage`); tool results read from one AI SDK tool
 * message go back into it; lone surrogates are replaced. Every change is named in the warnings.
 */
export function writeAiSdkMessages(
  messages: readonly Message[],
  options: WriteAiSdkMessagesOptions,
): WriteAiSdkMessagesResult {
  checkMessages(messages, 'ctxloom messages (to the AI SDK)');
  const repaired = repairToolPairing(messages, { policy: options.toolPairing });
  const writer = new Writer(options);
  writer.warnings.push(...repaired.warnings);
  repaired.messages.forEach((message, position) => {
    writer.write(message, repaired.sourceIndexes[position] ?? position);
  });
  writer.flush();
  return { messages: writer.out, sources: writer.sources, warnings: writer.warnings };
}

type Entry = { readonly written: AiSdkPartLike; readonly source: AiSdkPartLike | undefined };
type ToolGroup = {
  readonly source: AiSdkMessageLike | undefined;
  readonly entries: Entry[];
  /** The first ctxloom message of the group (its id and metadata are carried for a new message). */
  readonly message: Message;
  readonly index: number;
};

class Writer {
  readonly out: AiSdkMessageLike[] = [];
  readonly sources: (AiSdkMessageLike | undefined)[] = [];
  readonly warnings: AdapterWarning[] = [];
  readonly #options: WriteAiSdkMessagesOptions;
  readonly #callNames = new Map<string, string>();
  readonly #readParts: ReadonlySet<AiSdkPartLike>;
  #group: ToolGroup | undefined;

  constructor(options: WriteAiSdkMessagesOptions) {
    this.#options = options;
    this.#readParts = options.readParts ?? readPartsOf(options.origins);
  }

  write(message: Message, index: number): void {
    const { origins, dialect, carryMetadata } = this.#options;
    if (message.role !== 'tool') {
      this.flush();
      for (const call of message.toolCalls ?? []) this.#callNames.set(call.id, call.name);
      const run = {
        index,
        warnings: this.warnings,
        dialect,
        origins,
        readParts: this.#readParts,
        carry: carryMetadata,
      };
      this.#push(writeAiSdkMessage(message, run), { index, source: originOf(message, origins)?.source });
      return;
    }
    const origin = originOf(message, origins);
    const written = writeToolResult(message, {
      index,
      warnings: this.warnings,
      dialect,
      callNames: this.#callNames,
      parts: origins?.parts,
      origin,
    });
    if (origin === undefined || this.#group?.source !== origin.source) this.flush();
    this.#group ??= { source: origin?.source, entries: [], message, index };
    this.#group.entries.push({ written, source: origin?.part });
  }

  flush(): void {
    const group = this.#group;
    if (group === undefined) return;
    this.#group = undefined;
    const { source, index } = group;
    this.#push(source === undefined ? this.#freshTool(group) : rejoin(group, source), { index, source });
  }

  #freshTool(group: ToolGroup): AiSdkMessageLike {
    const { message } = group;
    const carried = {
      id: message.id,
      ...(message.name === undefined ? {} : { name: message.name }),
      ...(message.metadata === undefined ? {} : { metadata: message.metadata }),
    };
    return {
      role: 'tool',
      content: group.entries.map((entry) => entry.written),
      ...(this.#options.carryMetadata ? { providerOptions: { [AI_SDK_PROVIDER_KEY]: carried } } : {}),
    };
  }

  #push(
    message: AiSdkMessageLike,
    at: { readonly index: number; readonly source: AiSdkMessageLike | undefined },
  ): void {
    const clean = this.#options.cleanSources;
    const isOriginal = message === at.source;
    if (isOriginal && clean?.has(message) === true) this.out.push(message);
    else {
      const scrubbed = scrubWithWarning(message, { index: at.index, warnings: this.warnings });
      if (isOriginal && scrubbed === message) clean?.add(message);
      this.out.push(scrubbed);
    }
    this.sources.push(at.source);
  }
}

/** The AI SDK tool message the results were read from: the original when every result is unchanged. */
function rejoin(group: ToolGroup, source: AiSdkMessageLike): AiSdkMessageLike {
  const parts = typeof source.content === 'string' ? [] : source.content;
  const results = parts.filter((part) => part.type === 'tool-result');
  const isSame =
    results.length === group.entries.length &&
    group.entries.every((entry, position) => entry.written === results[position]);
  if (isSame) return source;
  const bySource = new Map(
    group.entries.flatMap((entry) => (entry.source === undefined ? [] : [[entry.source, entry]])),
  );
  const content: AiSdkPartLike[] = [];
  const used = new Set<Entry>();
  for (const part of parts) {
    const entry = part.type === 'tool-result' ? bySource.get(part) : undefined;
    if (part.type !== 'tool-result') content.push(part);
    else if (entry !== undefined) {
      content.push(entry.written);
      used.add(entry);
    }
  }
  for (const entry of group.entries) if (!used.has(entry)) content.push(entry.written);
  return { ...source, content };
}
