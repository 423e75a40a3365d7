import type { JSONValue, ModelMessage, ToolResultPart } from 'ai';
import { ContextError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import type { ContentPart, Message, Metadata, ToolCall } from '../core/message.js';
import type { AdapterResult, AdapterWarning } from './adapter-warning.js';
import { AI_SDK_PROVIDER_KEY } from './to-ai-sdk-messages.js';

/** Options for {@link fromAiSdkMessages}. */
export type FromAiSdkMessagesOptions = {
  /** Makes ids for messages that carry none in `providerOptions.ctxloom`. @default `ai-sdk-<index>` */
  readonly generateId?: IdGenerator;
};

type Carried = { readonly [key: string]: JSONValue | undefined };
type Run = { readonly index: number; readonly warnings: AdapterWarning[] };

/**
 * Converts AI SDK `ModelMessage`s (v6) into ctxloom messages. What `toAiSdkMessages` carried in
 * `providerOptions.ctxloom` (ids, names, metadata, image paths, exact tool arguments) is restored, so
 * `fromAiSdkMessages(toAiSdkMessages(x).messages)` equals `x` except what the warnings name. A `tool`
 * message with several results becomes several tool messages. Tool inputs are serialised to JSON;
 * bytes and base64 media become `data:` URLs; JSON, error and denied tool outputs become text (named
 * in the warnings); approval parts and provider-executed results are left out (named too).
 * @throws ContextError `INVALID_INPUT` for an unknown role.
 */
export function fromAiSdkMessages(
  input: readonly ModelMessage[],
  options: FromAiSdkMessagesOptions = {},
): AdapterResult<Message> {
  const warnings: AdapterWarning[] = [];
  const messages: Message[] = [];
  input.forEach((message, index) => {
    const carried = carriedOf(message.providerOptions);
    const id =
      typeof carried?.['id'] === 'string' ? carried['id'] : (options.generateId?.() ?? `ai-sdk-${index}`);
    const base = { id, ...nameAndMetadata(carried) };
    const run = { index, warnings };
    switch (message.role) {
      case 'system':
        messages.push({ ...base, role: 'system', content: message.content });
        return;
      case 'user':
        messages.push({ ...base, role: 'user', content: userContent(message.content, { ...run, carried }) });
        return;
      case 'assistant':
        messages.push(assistantMessage(message.content, { ...run, base, carried }));
        return;
      case 'tool':
        messages.push(...toolMessages(message.content, { ...run, base, carried }));
        return;
      default:
        throw new ContextError({
          code: 'INVALID_INPUT',
          message: `ModelMessage ${index} has an unknown role; expected system, user, assistant or tool.`,
        });
    }
  });
  return { messages, warnings };
}

function carriedOf(providerOptions: ModelMessage['providerOptions'] | undefined): Carried | undefined {
  const value = providerOptions?.[AI_SDK_PROVIDER_KEY];
  return typeof value === 'object' && value !== null ? value : undefined;
}

function nameAndMetadata(carried: Carried | undefined): { name?: string; metadata?: Metadata } {
  const name = carried?.['name'];
  const metadata = carried?.['metadata'];
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? { metadata } : {}),
  };
}

type UserParts = Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string>;

function userContent(
  content: string | UserParts,
  run: Run & { readonly carried: Carried | undefined },
): Message['content'] {
  if (typeof content === 'string') return content;
  const pathsValue = run.carried?.['paths'];
  const paths =
    typeof pathsValue === 'object' && pathsValue !== null && !Array.isArray(pathsValue) ? pathsValue : {};
  return content.map((part, position): ContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const path = paths[String(position)];
    const withPath = typeof path === 'string' ? { path } : {};
    if (part.type === 'image') {
      return {
        type: 'image',
        url: toUrl(part.image, part.mediaType ?? 'image/png'),
        ...(part.mediaType === undefined ? {} : { mediaType: part.mediaType }),
        ...withPath,
      };
    }
    return {
      type: 'file',
      url: toUrl(part.data, part.mediaType),
      mediaType: part.mediaType,
      ...(part.filename === undefined ? {} : { filename: part.filename }),
      ...withPath,
    };
  });
}

/** A data content or URL of the AI SDK as a URL string (`data:` for bytes and base64). */
function toUrl(data: string | Uint8Array | ArrayBuffer | URL, mediaType: string): string {
  if (data instanceof URL) return data.href;
  if (typeof data === 'string') {
    return /^(https?:|data:)/i.test(data) ? data : `data:${mediaType};base64,${data}`;
  }
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  return `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;
}

type AssistantContent = Extract<ModelMessage, { role: 'assistant' }>['content'];

function assistantMessage(
  content: AssistantContent,
  run: Run & {
    readonly base: Pick<Message, 'id' | 'name' | 'metadata'>;
    readonly carried: Carried | undefined;
  },
): Message {
  if (typeof content === 'string') return { ...run.base, role: 'assistant', content };
  const texts: ContentPart[] = [];
  const reasoning: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning') reasoning.push(part.text);
    else if (part.type === 'file')
      texts.push({
        type: 'file',
        url: toUrl(part.data, part.mediaType),
        mediaType: part.mediaType,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      });
    else if (part.type === 'tool-call') {
      const exact = carriedOf(part.providerOptions)?.['arguments'];
      toolCalls.push({
        id: part.toolCallId,
        name: part.toolName,
        arguments:
          typeof exact === 'string' ? exact : part.input === undefined ? '{}' : JSON.stringify(part.input),
      });
    } else
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `${part.type} part left out`,
      });
  }
  const asParts = run.carried?.['partsContent'] === 'true' || texts.some((part) => part.type !== 'text');
  return {
    ...run.base,
    role: 'assistant',
    content: asParts ? texts : texts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
    ...(reasoning.length === 0 ? {} : { reasoning: reasoning.join('') }),
  };
}

type ToolParts = Extract<ModelMessage, { role: 'tool' }>['content'];

function toolMessages(
  content: ToolParts,
  run: Run & {
    readonly base: Pick<Message, 'id' | 'name' | 'metadata'>;
    readonly carried: Carried | undefined;
  },
): Message[] {
  const out: Message[] = [];
  for (const part of content) {
    if (part.type !== 'tool-result') {
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `${part.type} part left out`,
      });
      continue;
    }
    const name =
      run.carried === undefined ? (part.toolName === '' ? undefined : part.toolName) : run.base.name;
    out.push({
      ...run.base,
      id: out.length === 0 ? run.base.id : `${run.base.id}-${out.length + 1}`,
      role: 'tool',
      content: outputContent(part.output, run),
      toolCallId: part.toolCallId,
      ...(name === undefined ? {} : { name }),
    });
  }
  return out;
}

function outputContent(output: ToolResultPart['output'], run: Run): Message['content'] {
  switch (output.type) {
    case 'text':
      return output.value;
    case 'error-text':
      run.warnings.push({ type: 'converted', index: run.index, message: 'error tool output read as text' });
      return output.value;
    case 'json':
    case 'error-json':
      run.warnings.push({
        type: 'converted',
        index: run.index,
        message: `${output.type} tool output read as JSON text`,
      });
      return JSON.stringify(output.value);
    case 'execution-denied':
      run.warnings.push({
        type: 'converted',
        index: run.index,
        message: 'denied tool execution read as text',
      });
      return `Tool execution denied${output.reason === undefined ? '' : `: ${output.reason}`}`;
    case 'content':
      return output.value.flatMap((item): ContentPart[] => {
        if (item.type === 'text') return [{ type: 'text', text: item.text }];
        if (item.type === 'media' || item.type === 'image-data' || item.type === 'file-data') {
          const url = `data:${item.mediaType};base64,${item.data}`;
          return item.mediaType.startsWith('image/')
            ? [{ type: 'image', url, mediaType: item.mediaType }]
            : [{ type: 'file', url, mediaType: item.mediaType }];
        }
        if (item.type === 'image-url') return [{ type: 'image', url: item.url }];
        if (item.type === 'file-url')
          return [{ type: 'file', url: item.url, mediaType: item.mediaType ?? 'application/octet-stream' }];
        run.warnings.push({
          type: 'unsupported-part',
          index: run.index,
          message: `${item.type} tool output part left out`,
        });
        return [];
      });
  }
}
