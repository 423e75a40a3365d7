import type { AdapterWarning } from '../adapters/adapter-warning.js';
import { checkMessages } from '../adapters/check-messages.js';
import type { ToolPairingPolicy } from '../adapters/repair-tool-pairing.js';
import { scrubWithWarning } from '../adapters/scrub-lone-surrogates.js';
import type { Message } from '../core/message.js';
import type { AiSdkDialect, AiSdkMessageLike, AiSdkPartLike } from './ai-sdk-message-like.js';
import { aiSdkNativeOf, providerOptionsEntry } from './ai-sdk-native.js';
import type { AiSdkOrigins } from './ai-sdk-origins.js';
import { pairAiSdkToolCalls } from './pair-ai-sdk-tool-calls.js';
import { AI_SDK_PROVIDER_KEY, mergeProviderOptions } from './read-ai-sdk-options.js';
import { originOf, writeAiSdkMessage } from './write-ai-sdk-message.js';
import { writeToolResult } from './write-tool-result.js';

/** Options for {@link writeAiSdkMessages}. */
export type WriteAiSdkMessagesOptions = {
  readonly dialect: AiSdkDialect;
  /** What `readAiSdkMessages` recorded: messages and parts that are the very objects read come back as the originals. */
  readonly origins?: AiSdkOrigins | undefined;
  /**
   * Original messages already found free of lone surrogates (by an earlier step of the run): given
   * back without a scan; the ones found clean now are added. @default every message is scanned
   */
  readonly cleanSources?: WeakSet<object> | undefined;
  /** Carry ids, names and metadata of messages not read from the AI SDK in `providerOptions.ctxloom`. */
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
 * Writes ctxloom messages as AI SDK messages of the dialect, from their data alone: the tool-call
 * pairing is made legal first (see `pairAiSdkToolCalls`), each message is written by
 * `writeAiSdkMessage`; consecutive tool results read from one AI SDK tool message go back into one;
 * lone surrogates are replaced. With `origins`, a message that is the very object read comes back
 * as the original object. Every change is named in the warnings.
 */
export function writeAiSdkMessages(
  messages: readonly Message[],
  options: WriteAiSdkMessagesOptions,
): WriteAiSdkMessagesResult {
  checkMessages(messages, 'ctxloom messages (to the AI SDK)');
  const repaired = pairAiSdkToolCalls(messages, options.toolPairing);
  const writer = new Writer(options);
  writer.warnings.push(...repaired.warnings);
  repaired.messages.forEach((message, position) => {
    writer.write(message, repaired.sourceIndexes[position] ?? position);
  });
  writer.flush();
  return { messages: writer.out, sources: writer.sources, warnings: writer.warnings };
}

type ToolGroup = {
  readonly source: AiSdkMessageLike | undefined;
  readonly parts: AiSdkPartLike[];
  /** The first ctxloom message of the group (its native fields and carried id are the message's). */
  readonly message: Message;
  readonly index: number;
};

class Writer {
  readonly out: AiSdkMessageLike[] = [];
  readonly sources: (AiSdkMessageLike | undefined)[] = [];
  readonly warnings: AdapterWarning[] = [];
  readonly #options: WriteAiSdkMessagesOptions;
  readonly #callNames = new Map<string, string>();
  #group: ToolGroup | undefined;

  constructor(options: WriteAiSdkMessagesOptions) {
    this.#options = options;
  }

  write(message: Message, index: number): void {
    const { origins, dialect, carryMetadata } = this.#options;
    if (message.role !== 'tool') {
      this.flush();
      for (const call of message.toolCalls ?? []) this.#callNames.set(call.id, call.name);
      const run = { index, warnings: this.warnings, dialect, origins, carry: carryMetadata };
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
    if (aiSdkNativeOf(message).joinsPrevious !== true) this.flush();
    this.#group ??= { source: origin?.source, parts: [], message, index };
    if (written !== undefined) this.#group.parts.push(written);
  }

  flush(): void {
    const group = this.#group;
    if (group === undefined) return;
    this.#group = undefined;
    const { source, index } = group;
    const isSame =
      source !== undefined &&
      typeof source.content !== 'string' &&
      source.content.length === group.parts.length &&
      source.content.every((part, position) => part === group.parts[position]);
    if (group.parts.length === 0) return;
    this.#push(isSame ? source : this.#toolMessage(group), { index, source });
  }

  #toolMessage(group: ToolGroup): AiSdkMessageLike {
    const { message } = group;
    const native = aiSdkNativeOf(message);
    const carried: Record<string, unknown> = {};
    if (native.generatedId !== true) carried['id'] = message.id;
    if (message.metadata !== undefined) carried['metadata'] = message.metadata;
    if (Object.keys(carried).length > 0 && message.name !== undefined) carried['name'] = message.name;
    const isCarried = this.#options.carryMetadata && Object.keys(carried).length > 0;
    const providerOptions = mergeProviderOptions(
      native.messageProviderOptions,
      isCarried ? { [AI_SDK_PROVIDER_KEY]: carried } : {},
    );
    return {
      ...native.messageFields,
      role: 'tool',
      content: group.parts,
      ...providerOptionsEntry(providerOptions),
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
