import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { IdGenerator } from '../core/ids.js';
import type { JsonObject } from '../core/json.js';
import type { ContentPart, Message, Metadata, ProviderOptions, ToolCall } from '../core/message.js';
import { type AiSdkMessageLike, type AiSdkPartLike, fieldOf, stringOf } from './ai-sdk-message-like.js';
import { type AiSdkNative, nativeEntry, providerOptionsEntry } from './ai-sdk-native.js';
import type { AiSdkOrigin, AiSdkOrigins } from './ai-sdk-origins.js';
import { checkAiSdkMessage } from './check-ai-sdk-message.js';
import { AI_SDK_PROVIDER_KEY, carriedOf } from './read-ai-sdk-options.js';
import { aiSdkProviderPart, isClientToolCall, readAiSdkPart, readAiSdkToolCall } from './read-ai-sdk-part.js';
import { readCarries } from './read-ai-sdk-part-carries.js';
import { type PartRecorder, readToolOutput } from './read-tool-output.js';

export { AI_SDK_PROVIDER_KEY };

/** What {@link readAiSdkMessages} returns. */
export type ReadAiSdkMessagesResult = {
  readonly messages: readonly Message[];
  readonly warnings: readonly AdapterWarning[];
  readonly origins: AiSdkOrigins;
};

/**
 * Reads AI SDK messages (`ModelMessage` of AI SDK 6 or 7, or a provider-level prompt) into ctxloom
 * messages, every field kept in the data (message format 2): provider options on messages, parts and
 * calls, reasoning parts with their signatures, typed tool outputs, parts ctxloom does not model as
 * `ai-sdk` provider parts, and in `native['ai-sdk']` what else it takes to write them back exactly. A
 * tool message with several results becomes several tool messages. `origins` records where each came
 * from, so an unchanged message can be given back as the same object.
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
type Base = Pick<Message, 'id' | 'name' | 'metadata'>;
/** A message's provider options, unknown fields and whether its id was made by the reader. */
type MessageCarries = {
  readonly providerOptions?: ProviderOptions | undefined;
  readonly fields?: JsonObject | undefined;
  readonly generatedId: boolean;
};
type Run = { readonly base: Base; readonly carried: Carried | undefined; readonly index: number };

const MESSAGE_KNOWN = new Set(['role', 'content', 'providerOptions']);
const RESULT_KNOWN = new Set(['type', 'toolCallId', 'toolName', 'output', 'providerOptions']);

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
  /** Tool call ids by approval id, from the approval requests read so far. */
  readonly #approvals = new Map<string, string>();
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
    const run: Run = {
      base: { id: this.#uniqueId(carried, index), ...nameAndMetadata(carried) },
      carried,
      index,
    };
    if (source.role === 'tool') {
      this.#tool(source, run);
      return;
    }
    const { providerOptions, fields } = readCarries(source, MESSAGE_KNOWN);
    const carries: MessageCarries = { providerOptions, fields, generatedId: isGeneratedId(carried) };
    const content = source.content;
    switch (source.role) {
      case 'system':
        this.#push(
          { ...run.base, role: 'system', content: typeof content === 'string' ? content : texts(content) },
          { carries, source },
        );
        return;
      case 'user':
        this.#push(
          {
            ...run.base,
            role: 'user',
            content: typeof content === 'string' ? content : this.#content(content, run),
          },
          { carries, source },
        );
        return;
      case 'assistant':
        this.#assistant(source, { ...run, carries });
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
    from: {
      readonly carries: MessageCarries;
      readonly source: AiSdkMessageLike;
      readonly extra?: AiSdkNative;
      readonly part?: AiSdkPartLike;
    },
  ): void {
    const { carries, source, extra, part } = from;
    const native: AiSdkNative = {
      ...(carries.generatedId ? { generatedId: true } : {}),
      ...(carries.fields === undefined ? {} : { fields: carries.fields }),
      ...extra,
    };
    const read: Message = {
      ...message,
      ...providerOptionsEntry(carries.providerOptions),
      ...nativeEntry(native),
    };
    this.messages.push(read);
    this.#byId.set(read.id, { source, message: read, ...(part === undefined ? {} : { part }) });
  }

  #content(parts: readonly AiSdkPartLike[], run: Run): ContentPart[] {
    const paths = run.carried?.['paths'];
    return parts.map((part, position) => this.#part(part, { position, paths }));
  }

  #part(part: AiSdkPartLike, at: { readonly position: number; readonly paths: unknown }): ContentPart {
    const read = readAiSdkPart(part);
    const path =
      typeof at.paths === 'object' && at.paths !== null ? fieldOf(at.paths, String(at.position)) : undefined;
    const withPath =
      typeof path === 'string' && (read.type === 'image' || read.type === 'file') ? { ...read, path } : read;
    this.#recorder.set(withPath, part);
    if (part.type === 'tool-approval-request') {
      const approvalId = stringOf(part, 'approvalId');
      const callId = stringOf(part, 'toolCallId');
      if (approvalId !== undefined && callId !== undefined) this.#approvals.set(approvalId, callId);
    }
    return withPath;
  }

  #assistant(source: AiSdkMessageLike, run: Run & { readonly carries: MessageCarries }): void {
    if (typeof source.content === 'string') {
      this.#push(
        { ...run.base, role: 'assistant', content: source.content },
        { carries: run.carries, source },
      );
      return;
    }
    const content: ContentPart[] = [];
    const toolCalls: ToolCall[] = [];
    const callIndexes: number[] = [];
    source.content.forEach((part, position) => {
      if (!isClientToolCall(part)) {
        content.push(this.#part(part, { position, paths: undefined }));
        return;
      }
      const call = readAiSdkToolCall(part);
      this.#recorder.set(call, part);
      toolCalls.push(call);
      callIndexes.push(position);
    });
    const reasoning = reasoningField(content, run.carried);
    const parts = reasoning === undefined ? content : content.slice(1);
    const total = source.content.length;
    const isDefaultOrder = callIndexes.every((at, position) => at === total - callIndexes.length + position);
    const message: Message = {
      ...run.base,
      role: 'assistant',
      content: asString(parts, { carried: run.carried, calls: toolCalls.length })
        ? parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
        : parts,
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...(reasoning === undefined ? {} : { reasoning }),
    };
    this.#push(message, { carries: run.carries, source, extra: isDefaultOrder ? {} : { callIndexes } });
  }

  #tool(source: AiSdkMessageLike, run: Run): void {
    if (typeof source.content === 'string') return;
    const { providerOptions, fields } = readCarries(source, MESSAGE_KNOWN);
    const group: AiSdkNative = {
      ...(providerOptions === undefined ? {} : { messageProviderOptions: providerOptions }),
      ...(fields === undefined ? {} : { messageFields: fields }),
    };
    source.content.forEach((part, position) => {
      const id = position === 0 ? run.base.id : `${run.base.id}-${position + 1}`;
      const place: AiSdkNative = position === 0 ? group : { joinsPrevious: true };
      if (part.type === 'tool-result') {
        this.#toolResult(part, { ...run, id, place, source });
        return;
      }
      const approvalId = stringOf(part, 'approvalId');
      const message: Message = {
        id,
        role: 'tool',
        toolCallId: (approvalId === undefined ? undefined : this.#approvals.get(approvalId)) ?? '',
        content: [aiSdkProviderPart(part)],
      };
      this.#push(message, {
        carries: { generatedId: isGeneratedId(run.carried) },
        source,
        extra: { ...place, toolPart: true },
        part,
      });
    });
  }

  #toolResult(
    part: AiSdkPartLike,
    run: Run & { readonly id: string; readonly place: AiSdkNative; readonly source: AiSdkMessageLike },
  ): void {
    const read = readToolOutput(part['output'], {
      index: run.index,
      warnings: this.warnings,
      parts: this.#recorder,
    });
    const toolName = stringOf(part, 'toolName');
    // Carried by toAiSdkMessages: the message's own name; otherwise the part's tool name.
    const name = run.carried === undefined ? (toolName === '' ? undefined : toolName) : run.base.name;
    const { providerOptions, fields } = readCarries(part, RESULT_KNOWN);
    const message: Message = {
      id: run.id,
      role: 'tool',
      content: read.content,
      toolCallId: stringOf(part, 'toolCallId') ?? '',
      ...(name === undefined ? {} : { name }),
      ...(run.base.metadata === undefined ? {} : { metadata: run.base.metadata }),
      ...(read.output === undefined ? {} : { output: read.output }),
    };
    this.#push(message, {
      carries: { providerOptions, fields, generatedId: isGeneratedId(run.carried) },
      source: run.source,
      extra: { ...run.place, ...read.native },
      part,
    });
  }
}

/** Whether the reader makes the id: `toAiSdkMessages` carried none. */
function isGeneratedId(carried: Carried | undefined): boolean {
  return typeof carried?.['id'] !== 'string';
}

function texts(parts: readonly AiSdkPartLike[]): string {
  return parts
    .flatMap((part) => (part.type === 'text' ? [String(fieldOf(part, 'text') ?? '')] : []))
    .join('');
}

function isPlainText(part: ContentPart): boolean {
  return part.type === 'text' && part.providerOptions === undefined && part.native === undefined;
}

/**
 * Whether assistant content reads as a string: when `toAiSdkMessages` says so, or when the writer
 * gives the same parts back from the string (no text, or one text before the calls).
 */
function asString(
  parts: readonly ContentPart[],
  run: { readonly carried: Carried | undefined; readonly calls: number },
): boolean {
  if (!parts.every(isPlainText)) return false;
  if (run.carried !== undefined) return run.carried['partsContent'] !== 'true';
  const first = parts[0];
  return (
    run.calls > 0 &&
    (parts.length === 0 || (parts.length === 1 && first?.type === 'text' && first.text !== ''))
  );
}

/** The `reasoning` field `toAiSdkMessages` wrote as the first reasoning part, when it says so. */
function reasoningField(content: readonly ContentPart[], carried: Carried | undefined): string | undefined {
  const first = content[0];
  if (carried?.['reasoningField'] !== true || first?.type !== 'reasoning') return undefined;
  const { type: _type, text, ...rest } = first;
  return Object.keys(rest).length === 0 ? text : undefined;
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
