import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import { type AdapterResult, type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import type { ForeignOrigin, ForeignOrigins } from './foreign-origins.js';
import { invalidInput } from './invalid-input.js';

/** Options for {@link fromOpenAIChatMessages}. */
export type FromOpenAIChatMessagesOptions = {
  /** Makes the message ids. @default `openai-<index>` */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link FromOpenAIChatMessagesOptions}, for `checkOptions`. @internal */
export const FROM_OPENAI_CHAT_MESSAGES_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<FromOpenAIChatMessagesOptions>;

/** Where each message read by {@link fromOpenAIChatMessages} came from. */
export type OpenAIChatOrigins = ForeignOrigins<Readonly<Record<string, unknown>>>;

/** What {@link fromOpenAIChatMessages} returns. */
export type FromOpenAIChatMessagesResult = AdapterResult<Message> & {
  /** Pass to `toOpenAIChatMessages({ origins })` to get the original objects back. */
  readonly origins: OpenAIChatOrigins;
};

type Json = Readonly<Record<string, unknown>>;
type Run = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly parts: Map<object, object>;
};

const FORMAT = 'OpenAI chat';

/**
 * Converts OpenAI chat completions `messages` (as sent or stored, possibly from a relay) into
 * ctxloom messages, remembering where each came from: `toOpenAIChatMessages(messages, { origins })`
 * gives back the same object for every message ctxloom did not change, and keeps every field it does
 * not own (unknown keys, `cache_control`, `image_url.detail`, `extra_content` on tool calls, audio
 * parts) on the ones it changed. Lenient where real data is broken, so the governor can repair it: a
 * tool call with `name: null` becomes `name: ''`, a missing id `''`, non-string arguments are
 * serialised to JSON. `developer` becomes `system`; `reasoning_content` (or `reasoning`) becomes
 * `reasoning`; a refusal is read as text; a tool message gets the name of the call it answers.
 * @throws ContextError `INVALID_INPUT` naming the path of a field that cannot be read (not an object,
 * an unknown role, content that is not a string, a part list or null).
 */
export function fromOpenAIChatMessages(
  input: readonly unknown[],
  options: FromOpenAIChatMessagesOptions = {},
): FromOpenAIChatMessagesResult {
  checkOptions(options, {
    where: 'fromOpenAIChatMessages options',
    known: FROM_OPENAI_CHAT_MESSAGES_OPTION_KEYS,
  });
  const warnings: AdapterWarning[] = [];
  const callNames = new Map<string, string>();
  const messages: Message[] = [];
  const byId = new Map<string, ForeignOrigin<Json>>();
  const parts = new Map<object, object>();
  input.forEach((raw, index) => {
    if (!isRecord(raw)) {
      throw invalidInput({
        format: FORMAT,
        path: `messages[${index}]`,
        expected: 'a message object',
        received: raw,
      });
    }
    const wanted = options.generateId?.() ?? `openai-${index}`;
    const id = byId.has(wanted) ? `${wanted}#${index}` : wanted;
    const message = readMessage(raw, { id, callNames, index, warnings, parts });
    messages.push(message);
    byId.set(id, { source: raw, message });
  });
  return { messages, warnings, origins: { messages: byId, parts } };
}

function readMessage(
  entry: Json,
  run: Run & { readonly id: string; readonly callNames: Map<string, string> },
): Message {
  const name = typeof entry['name'] === 'string' ? { name: entry['name'] } : {};
  const id = run.id;
  switch (entry['role']) {
    case 'system':
    case 'developer':
      return { id, role: 'system', content: readContent(entry['content'], run), ...name };
    case 'user':
      return { id, role: 'user', content: readContent(entry['content'], run), ...name };
    case 'assistant':
      return readAssistant(entry, { ...run, name });
    case 'tool': {
      const toolCallId = typeof entry['tool_call_id'] === 'string' ? entry['tool_call_id'] : '';
      const toolName = run.callNames.get(toolCallId);
      return {
        id,
        role: 'tool',
        content: readContent(entry['content'], run),
        toolCallId,
        ...(toolName === undefined ? {} : { name: toolName }),
      };
    }
    default:
      throw invalidInput({
        format: FORMAT,
        path: `messages[${run.index}].role`,
        expected: 'one of system, developer, user, assistant, tool',
        received: entry['role'],
      });
  }
}

function readAssistant(
  entry: Json,
  run: Run & {
    readonly id: string;
    readonly name: { readonly name?: string };
    readonly callNames: Map<string, string>;
  },
): Message {
  const rawCalls = entry['tool_calls'];
  if (rawCalls !== undefined && rawCalls !== null && !Array.isArray(rawCalls)) {
    throw invalidInput({
      format: FORMAT,
      path: `messages[${run.index}].tool_calls`,
      expected: 'an array of tool calls',
      received: rawCalls,
    });
  }
  const toolCalls = (Array.isArray(rawCalls) ? rawCalls : []).map((raw: unknown, position) => {
    if (!isRecord(raw)) {
      throw invalidInput({
        format: FORMAT,
        path: `messages[${run.index}].tool_calls[${position}]`,
        expected: 'a tool call object',
        received: raw,
      });
    }
    const call = readToolCall(raw);
    run.parts.set(call, raw);
    run.callNames.set(call.id, call.name);
    return call;
  });
  if (entry['function_call'] !== undefined && entry['function_call'] !== null) {
    run.warnings.push({ type: 'dropped-field', index: run.index, message: 'legacy function_call not read' });
  }
  const reasoning = [entry['reasoning_content'], entry['reasoning']].find(
    (value) => typeof value === 'string',
  );
  return {
    id: run.id,
    role: 'assistant',
    content:
      entry['content'] === null || entry['content'] === undefined ? '' : readContent(entry['content'], run),
    ...run.name,
    ...(toolCalls.length === 0 && !Array.isArray(rawCalls) ? {} : { toolCalls }),
    ...(typeof reasoning === 'string' ? { reasoning } : {}),
  };
}

function readToolCall(call: Json): ToolCall {
  const fn = isRecord(call['function']) ? call['function'] : call;
  const args = fn['arguments'];
  return {
    id: typeof call['id'] === 'string' ? call['id'] : '',
    name: typeof fn['name'] === 'string' ? fn['name'] : '',
    arguments:
      typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
  };
}

function readContent(raw: unknown, run: Run): Message['content'] {
  if (typeof raw === 'string') return raw;
  if (raw === undefined || raw === null) return '';
  if (!Array.isArray(raw)) {
    throw invalidInput({
      format: FORMAT,
      path: `messages[${run.index}].content`,
      expected: 'a string, an array of content parts or null',
      received: raw,
    });
  }
  const parts: ContentPart[] = [];
  raw.forEach((item: unknown, position) => {
    if (!isRecord(item) || typeof item['type'] !== 'string') {
      throw invalidInput({
        format: FORMAT,
        path: `messages[${run.index}].content[${position}]`,
        expected: 'a content part with a string type',
        received: item,
      });
    }
    const part = readPart(item);
    if (part === undefined) {
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `${item['type']} part not read (given back with its message)`,
      });
      return;
    }
    if (item['type'] === 'refusal')
      run.warnings.push({ type: 'converted', index: run.index, message: 'refusal read as text' });
    run.parts.set(part, item);
    parts.push(part);
  });
  return parts;
}

function readPart(part: Json): ContentPart | undefined {
  if (part['type'] === 'text' && typeof part['text'] === 'string')
    return { type: 'text', text: part['text'] };
  if (part['type'] === 'refusal' && typeof part['refusal'] === 'string')
    return { type: 'text', text: part['refusal'] };
  if (part['type'] === 'image_url') return imagePart(part['image_url']);
  if (part['type'] === 'file' && isRecord(part['file'])) return filePart(part['file']);
  return undefined;
}

function imagePart(image: unknown): ContentPart | undefined {
  const url = typeof image === 'string' ? image : isRecord(image) ? image['url'] : undefined;
  if (typeof url !== 'string' || url === '') return undefined;
  const mediaType = parseDataUrl(url)?.mediaType;
  return { type: 'image', url, ...(mediaType === undefined ? {} : { mediaType }) };
}

function filePart(file: Json): ContentPart | undefined {
  const data = file['file_data'];
  const parsed = typeof data === 'string' ? parseDataUrl(data) : undefined;
  if (typeof data !== 'string' || parsed === undefined) return undefined;
  const filename = typeof file['filename'] === 'string' ? { filename: file['filename'] } : {};
  return { type: 'file', url: data, mediaType: parsed.mediaType, ...filename };
}
