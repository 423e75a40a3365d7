import type { AdapterWarning } from '../adapters/adapter-warning.js';
import { TOOL_ERROR_KEY } from '../adapters/tool-error.js';
import type { IdGenerator } from '../core/ids.js';
import type { ContentPart, Message, Metadata, ToolCall } from '../core/message.js';
import { mediaPart, mediaUrl } from './ai-sdk-media.js';
import { type AiSdkMessageLike, type AiSdkPartLike, fieldOf, stringOf } from './ai-sdk-message-like.js';
import type { AiSdkOrigin, AiSdkOrigins } from './ai-sdk-origins.js';
import { checkAiSdkMessage } from './check-ai-sdk-message.js';
import { type PartRecorder, readToolOutput } from './read-tool-output.js';

/** The `providerOptions` key under which ctxloom carries what an AI SDK message has no field for. */
export const AI_SDK_PROVIDER_KEY = 'ctxloom';

/** What {@link readAiSdkMessages} returns. */
export type ReadAiSdkMessagesResult = {
  readonly messages: readonly Message[];
  readonly warnings: readonly AdapterWarning[];
  readonly origins: AiSdkOrigins;
};

/**
 * Reads AI SDK messages (`ModelMessage` of AI SDK 6 or 7, or a provider-level prompt) into ctxloom
 * messages and records where each came from (see {@link AiSdkOrigins}). A tool message with several
 * results becomes several tool messages; parts ctxloom has no form for (approvals, custom parts,
 * provider references) are not read, and are given back with their message.
 * @throws ContextError `INVALID_INPUT` naming the path of a field that is not an AI SDK message.
 */
export function readAiSdkMessages(
  input: readonly unknown[],
  options: { readonly generateId?: IdGenerator | undefined; readonly format: string },
): ReadAiSdkMessagesResult {
  const reader = new AiSdkMessageReader(options);
  input.forEach((raw, index) => {
    reader.read(checkAiSdkMessage(raw, { index, format: options.format }), index);
  });
  return { messages: reader.messages, warnings: reader.warnings, origins: reader.origins() };
}

type Carried = { readonly [key: string]: unknown };

/**
 * Reads AI SDK messages one at a time, in order, into ctxloom messages (see {@link readAiSdkMessages}):
 * the state of a list read so far, which a later step of a run can extend with its new messages.
 */
export class AiSdkMessageReader {
  readonly messages: Message[] = [];
  readonly warnings: AdapterWarning[] = [];
  /** The AI SDK parts read into ctxloom parts and tool calls (the values of `origins().parts`). */
  readonly readParts = new Set<AiSdkPartLike>();
  readonly #byId = new Map<string, AiSdkOrigin>();
  readonly #parts = new Map<object, AiSdkPartLike>();
  readonly #recorder: PartRecorder = {
    set: (read, source) => {
      this.#parts.set(read, source);
      this.readParts.add(source);
    },
  };
  readonly #generateId: IdGenerator | undefined;

  constructor(options: { readonly generateId?: IdGenerator | undefined }) {
    this.#generateId = options.generateId;
  }

  origins(): AiSdkOrigins {
    return { messages: this.#byId, parts: this.#parts };
  }

  /** Reads the message at `index` of the list (checked by `checkAiSdkMessage`). */
  read(source: AiSdkMessageLike, index: number): void {
    const carried = carriedOf(source);
    const base = { id: this.#uniqueId(carried, index), ...nameAndMetadata(carried) };
    const content = source.content;
    switch (source.role) {
      case 'system':
        this.#push(
          { ...base, role: 'system', content: typeof content === 'string' ? content : this.#texts(content) },
          { source },
        );
        return;
      case 'user':
        this.#push(
          {
            ...base,
            role: 'user',
            content: typeof content === 'string' ? content : this.#content(content, { index, carried }),
          },
          { source },
        );
        return;
      case 'assistant':
        this.#push(this.#assistant(source, { base, carried, index }), { source });
        return;
      case 'tool':
        this.#tool(source, { base, carried, index });
        return;
    }
  }

  #uniqueId(carried: Carried | undefined, index: number): string {
    const wanted = carried?.['id'];
    const id = typeof wanted === 'string' ? wanted : (this.#generateId?.() ?? `ai-sdk-${index}`);
    return this.#byId.has(id) ? `${id}#${index}` : id;
  }

  #push(
    message: Message,
    origin: { readonly source: AiSdkMessageLike; readonly part?: AiSdkPartLike },
  ): void {
    this.messages.push(message);
    this.#byId.set(message.id, { ...origin, message });
  }

  #texts(parts: readonly AiSdkPartLike[]): string {
    return parts
      .flatMap((part) => (part.type === 'text' ? [String(fieldOf(part, 'text') ?? '')] : []))
      .join('');
  }

  #content(
    parts: readonly AiSdkPartLike[],
    run: { readonly index: number; readonly carried: Carried | undefined },
  ): ContentPart[] {
    const paths = run.carried?.['paths'];
    const out: ContentPart[] = [];
    parts.forEach((part, position) => {
      const read = readPart(part);
      if (read === undefined) {
        if (part.type !== 'reasoning' && part.type !== 'tool-call')
          this.#note(run.index, `${part.type} part not read (given back with its message)`);
        return;
      }
      const path = typeof paths === 'object' && paths !== null ? fieldOf(paths, String(position)) : undefined;
      const withPath = typeof path === 'string' && read.type !== 'text' ? { ...read, path } : read;
      this.#recorder.set(withPath, part);
      out.push(withPath);
    });
    return out;
  }

  #assistant(
    source: AiSdkMessageLike,
    run: {
      readonly base: Pick<Message, 'id' | 'name' | 'metadata'>;
      readonly carried: Carried | undefined;
      readonly index: number;
    },
  ): Message {
    if (typeof source.content === 'string')
      return { ...run.base, role: 'assistant', content: source.content };
    const content = this.#content(source.content, run);
    const reasoning: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const part of source.content) {
      if (part.type === 'reasoning') reasoning.push(String(fieldOf(part, 'text') ?? ''));
      if (part.type !== 'tool-call') continue;
      const call = readToolCall(part);
      this.#recorder.set(call, part);
      toolCalls.push(call);
    }
    const asParts = run.carried?.['partsContent'] === 'true' || content.some((part) => part.type !== 'text');
    return {
      ...run.base,
      role: 'assistant',
      content: asParts ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...(reasoning.length === 0 ? {} : { reasoning: reasoning.join('') }),
    };
  }

  #tool(
    source: AiSdkMessageLike,
    run: {
      readonly base: Pick<Message, 'id' | 'name' | 'metadata'>;
      readonly carried: Carried | undefined;
      readonly index: number;
    },
  ): void {
    if (typeof source.content === 'string') return;
    let count = 0;
    for (const part of source.content) {
      if (part.type !== 'tool-result') {
        this.#note(run.index, `${part.type} part not read (given back with its message)`);
        continue;
      }
      count += 1;
      const id = count === 1 ? run.base.id : `${run.base.id}-${count}`;
      this.#push(this.#toolMessage(part, { ...run, id }), { source, part });
    }
  }

  #toolMessage(
    part: AiSdkPartLike,
    run: {
      readonly id: string;
      readonly base: Pick<Message, 'id' | 'name' | 'metadata'>;
      readonly carried: Carried | undefined;
      readonly index: number;
    },
  ): Message {
    const output = readToolOutput(part['output'], {
      index: run.index,
      warnings: this.warnings,
      parts: this.#recorder,
    });
    const toolName = stringOf(part, 'toolName');
    // Carried by toAiSdkMessages: the message's own name; otherwise the part's tool name.
    const name = run.carried === undefined ? (toolName === '' ? undefined : toolName) : run.base.name;
    const metadata = run.base.metadata ?? (output.isError ? { [TOOL_ERROR_KEY]: true } : undefined);
    return {
      id: run.id,
      role: 'tool',
      content: output.content,
      toolCallId: stringOf(part, 'toolCallId') ?? '',
      ...(name === undefined ? {} : { name }),
      ...(metadata === undefined ? {} : { metadata }),
    };
  }

  #note(index: number, message: string): void {
    this.warnings.push({ type: 'unsupported-part', index, message });
  }
}

function readPart(part: AiSdkPartLike): ContentPart | undefined {
  if (part.type === 'text') return textPart(stringOf(part, 'text'));
  if (part.type !== 'image' && part.type !== 'file') return undefined;
  const mediaType = stringOf(part, 'mediaType');
  const data = part[part.type === 'image' ? 'image' : 'data'];
  // AI SDK 7 file data may be text: read it as text.
  if (typeof data === 'object' && data !== null && fieldOf(data, 'type') === 'text')
    return textPart(stringOf(data, 'text'));
  const url = mediaUrl(data, mediaType ?? 'image/png');
  if (url === undefined) return undefined;
  if (part.type === 'image') return { type: 'image', url, ...(mediaType === undefined ? {} : { mediaType }) };
  return mediaPart({ url, mediaType: mediaType ?? 'application/octet-stream', filename: part['filename'] });
}

function textPart(text: string | undefined): ContentPart | undefined {
  return text === undefined ? undefined : { type: 'text', text };
}

function readToolCall(part: AiSdkPartLike): ToolCall {
  const exact = carriedOf(part)?.['arguments'];
  const input = part['input'];
  const raw = typeof input === 'string' ? input : JSON.stringify(input === undefined ? {} : input);
  return {
    id: stringOf(part, 'toolCallId') ?? '',
    name: stringOf(part, 'toolName') ?? '',
    arguments: typeof exact === 'string' ? exact : raw,
  };
}

/** What `toAiSdkMessages` carried in `providerOptions.ctxloom`, if anything. */
export function carriedOf(value: object): Carried | undefined {
  const providerOptions = fieldOf(value, 'providerOptions');
  if (typeof providerOptions !== 'object' || providerOptions === null) return undefined;
  const carried = fieldOf(providerOptions, AI_SDK_PROVIDER_KEY);
  // An object under our own key: written by toAiSdkMessages.
  return typeof carried === 'object' && carried !== null ? (carried as Carried) : undefined;
}

function nameAndMetadata(carried: Carried | undefined): { name?: string; metadata?: Metadata } {
  const name = carried?.['name'];
  const metadata = carried?.['metadata'];
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
      ? { metadata: metadata as Metadata } // a JSON object carried by toAiSdkMessages
      : {}),
  };
}
