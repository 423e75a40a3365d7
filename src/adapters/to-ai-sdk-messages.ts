import type {
  AssistantModelMessage,
  FilePart,
  ImagePart,
  JSONValue,
  ModelMessage,
  TextPart,
  ToolCallPart,
  ToolModelMessage,
  ToolResultPart,
} from 'ai';
import type { ContentPart, Message } from '../core/message.js';
import { type AdapterResult, type AdapterWarning, parseDataUrl } from './adapter-warning.js';

/** The `providerOptions` key under which ctxloom carries what `ModelMessage` has no field for. */
export const AI_SDK_PROVIDER_KEY = 'ctxloom';

/** Options for {@link toAiSdkMessages}. */
export type ToAiSdkMessagesOptions = {
  /**
   * Carry message ids, names, metadata, image paths and non-JSON tool arguments in
   * `providerOptions.ctxloom`, so `fromAiSdkMessages` restores them exactly (providers ignore keys
   * that are not theirs). @default true
   */
  readonly carryMetadata?: boolean;
};

type Carried = { [key: string]: JSONValue };
type ProviderOptions = NonNullable<ModelMessage['providerOptions']>;

/**
 * Converts messages to the AI SDK's `ModelMessage` (v6): text, image (`data:` URLs as base64 with a
 * media type, other URLs as `URL`) and file parts; reasoning as a `reasoning` part; tool calls as
 * `tool-call` parts with the arguments parsed to `input`; each tool result as a `tool` message with
 * one `tool-result` part (`output` `text`, or `content` when it has images). Images and files in
 * assistant or system messages the format cannot hold are named in the warnings.
 */
export function toAiSdkMessages(
  messages: readonly Message[],
  options: ToAiSdkMessagesOptions = {},
): AdapterResult<ModelMessage> {
  const warnings: AdapterWarning[] = [];
  const carry = options.carryMetadata ?? true;
  const callNames = new Map<string, string>();
  const out = messages.map((message, index) => {
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
    return convertMessage(message, { index, warnings, carry, callNames });
  });
  return { messages: out, warnings };
}

type Run = { readonly index: number; readonly warnings: AdapterWarning[]; readonly carried: Carried };

function convertMessage(
  message: Message,
  run: {
    readonly index: number;
    readonly warnings: AdapterWarning[];
    readonly carry: boolean;
    readonly callNames: ReadonlyMap<string, string>;
  },
): ModelMessage {
  const carried: Carried = { id: message.id };
  if (message.name !== undefined) carried['name'] = message.name;
  // Message metadata is JSON-serialisable by the Message contract.
  if (message.metadata !== undefined) carried['metadata'] = message.metadata as { [key: string]: JSONValue };
  const providerOptions: { providerOptions?: ProviderOptions } = run.carry
    ? { providerOptions: { [AI_SDK_PROVIDER_KEY]: carried } }
    : {};
  const context = { index: run.index, warnings: run.warnings, carried };
  switch (message.role) {
    case 'system':
      return { role: 'system', content: systemText(message, context), ...providerOptions };
    case 'user':
      return { role: 'user', content: userContent(message.content, context), ...providerOptions };
    case 'assistant':
      return { ...assistantMessage(message, context), ...providerOptions };
    case 'tool':
      return { ...toolMessage(message, { ...context, callNames: run.callNames }), ...providerOptions };
  }
}

function systemText(message: Message, run: Omit<Run, 'carried'>): string {
  if (typeof message.content === 'string') return message.content;
  if (message.content.some((part) => part.type !== 'text')) {
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message: 'non-text parts of a system message left out',
    });
  }
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

function userContent(content: Message['content'], run: Run): string | (TextPart | ImagePart | FilePart)[] {
  if (typeof content === 'string') return content;
  const paths: Record<string, string> = {};
  const parts = content.map((part, position): TextPart | ImagePart | FilePart => {
    if (part.type !== 'text' && part.path !== undefined) paths[String(position)] = part.path;
    if (part.type === 'image' && part.mediaType === undefined && parseDataUrl(part.url) !== undefined) {
      run.warnings.push({
        type: 'converted',
        index: run.index,
        message: 'image media type taken from its data URL',
      });
    }
    return mediaPart(part);
  });
  if (Object.keys(paths).length > 0) run.carried['paths'] = paths;
  return parts;
}

function mediaPart(part: ContentPart): TextPart | ImagePart | FilePart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const data = parseDataUrl(part.url);
  if (part.type === 'image') {
    const mediaType = part.mediaType ?? data?.mediaType;
    return {
      type: 'image',
      image: data === undefined ? new URL(part.url) : data.data,
      ...(mediaType === undefined ? {} : { mediaType }),
    };
  }
  return {
    type: 'file',
    data: data === undefined ? new URL(part.url) : data.data,
    mediaType: part.mediaType,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
  };
}

function assistantMessage(message: Message, run: Run): AssistantModelMessage {
  const calls = message.toolCalls ?? [];
  if (typeof message.content === 'string' && calls.length === 0 && message.reasoning === undefined) {
    return { role: 'assistant', content: message.content };
  }
  const parts: AssistantModelMessage['content'] & unknown[] = [];
  if (message.reasoning !== undefined) parts.push({ type: 'reasoning', text: message.reasoning });
  if (typeof message.content === 'string') {
    if (message.content !== '') parts.push({ type: 'text', text: message.content });
  } else {
    run.carried['partsContent'] = 'true';
    for (const part of message.content) {
      if (part.type === 'text') parts.push({ type: 'text', text: part.text });
      else if (part.type === 'file')
        parts.push(mediaPart(part) as FilePart); // a file part maps to a FilePart
      else
        run.warnings.push({
          type: 'unsupported-part',
          index: run.index,
          message: 'image in an assistant message left out',
        });
    }
  }
  for (const call of calls) parts.push(toolCallPart(call));
  return { role: 'assistant', content: parts };
}

function toolCallPart(call: {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}): ToolCallPart {
  let input: unknown;
  let exact = false;
  try {
    input = JSON.parse(call.arguments);
    exact = JSON.stringify(input) === call.arguments;
  } catch {
    input = {};
  }
  return {
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.name,
    input,
    ...(exact ? {} : { providerOptions: { [AI_SDK_PROVIDER_KEY]: { arguments: call.arguments } } }),
  };
}

function toolMessage(
  message: Message,
  run: Run & { readonly callNames: ReadonlyMap<string, string> },
): ToolModelMessage {
  const toolCallId = message.toolCallId ?? '';
  const toolName = message.name ?? run.callNames.get(toolCallId) ?? '';
  const output: ToolResultPart['output'] =
    typeof message.content === 'string'
      ? { type: 'text', value: message.content }
      : {
          type: 'content',
          value: message.content.map((part) => {
            if (part.type === 'text') return { type: 'text' as const, text: part.text };
            const data = parseDataUrl(part.url);
            if (data !== undefined)
              return { type: 'media' as const, data: data.data, mediaType: part.mediaType ?? data.mediaType };
            return part.type === 'image'
              ? { type: 'image-url' as const, url: part.url }
              : { type: 'file-url' as const, url: part.url, mediaType: part.mediaType };
          }),
        };
  return { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output }] };
}
