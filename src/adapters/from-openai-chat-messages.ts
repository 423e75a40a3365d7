import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import { type AdapterResult, type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import type { ForeignOrigin, ForeignOrigins } from './foreign-origins.js';
import { invalidInput } from './invalid-input.js';
import { LAYOUT_KEY, nativeEntry, restOf } from './native-fields.js';

/** The native format name of OpenAI chat completions (`native['openai-chat']`, `ProviderPart.format`). */
export const OPENAI_CHAT = 'openai-chat';

/** Options for {@link fromOpenAIChatMessages}. */
export type FromOpenAIChatMessagesOptions = {
  /** Makes the message ids. @default `openai-<index>` */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link FromOpenAIChatMessagesOptions}, for `checkOptions`. @internal */
export const FROM_OPENAI_CHAT_MESSAGES_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<FromOpenAIChatMessagesOptions>;

/** Where each message read by {@link fromOpenAIChatMessages} came from (an optimisation only). */
export type OpenAIChatOrigins = ForeignOrigins<Readonly<Record<string, unknown>>>;

/** What {@link fromOpenAIChatMessages} returns. */
export type FromOpenAIChatMessagesResult = AdapterResult<Message> & {
  /** Optional: pass to `toOpenAIChatMessages({ origins })` to get the very same objects back for unchanged messages. */
  readonly origins: OpenAIChatOrigins;
};

type Json = Readonly<Record<string, unknown>>;
type Run = { readonly index: number; readonly warnings: AdapterWarning[] };

const FORMAT = 'OpenAI chat';

/**
 * Converts OpenAI chat completions `messages` (as sent or stored, possibly from a relay) into
 * ctxloom messages, losslessly: `toOpenAIChatMessages` gives back the same messages (as JSON) from
 * the ctxloom messages alone. What ctxloom models goes into its fields (`developer` becomes `system`
 * with `role: 'developer'` kept native; `reasoning_content` or `reasoning` becomes `reasoning`; a
 * tool message gets the name of the call it answers); everything else (`name` on a tool message,
 * `image_url.detail`, `cache_control`, `refusal`, `function_call`, `extra_content` on tool calls,
 * unknown keys, `content: null` or absent) goes to `native['openai-chat']`; parts it does not model
 * (audio, refusals, files by id) become provider parts. Lenient where real data is broken, so the
 * governor can repair it: a tool call with `name: null` becomes `name: ''`, a missing id `''`,
 * non-string arguments are serialised to JSON.
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
    const message = readMessage(raw, { id, callNames, index, warnings });
    messages.push(message);
    byId.set(id, { source: raw, message });
  });
  return { messages, warnings, origins: { messages: byId, parts: new Map() } };
}

function readMessage(
  entry: Json,
  run: Run & { readonly id: string; readonly callNames: Map<string, string> },
): Message {
  const id = run.id;
  const role = entry['role'];
  switch (role) {
    case 'system':
    case 'developer':
    case 'user': {
      const { name, owned } = readName(entry);
      const fields = restOf(entry, ['content', ...owned, ...(role === 'developer' ? [] : ['role'])]);
      const { content, layout } = readContent(entry['content'], run);
      return {
        id,
        role: role === 'user' ? 'user' : 'system',
        content,
        ...name,
        ...nativeEntry(OPENAI_CHAT, withLayout(fields, layout)),
      };
    }
    case 'assistant':
      return readAssistant(entry, run);
    case 'tool': {
      const toolCallId = typeof entry['tool_call_id'] === 'string' ? entry['tool_call_id'] : '';
      const toolName = typeof entry['name'] === 'string' ? entry['name'] : run.callNames.get(toolCallId);
      const { content, layout } = readContent(entry['content'], run);
      // `name` stays native: whether the tool message had one is the caller's, not ctxloom's.
      const fields = restOf(entry, ['role', 'content', 'tool_call_id']);
      return {
        id,
        role: 'tool',
        content,
        toolCallId,
        ...(toolName === undefined ? {} : { name: toolName }),
        ...nativeEntry(OPENAI_CHAT, withLayout(fields, layout)),
      };
    }
    default:
      throw invalidInput({
        format: FORMAT,
        path: `messages[${run.index}].role`,
        expected: 'one of system, developer, user, assistant, tool',
        received: role,
      });
  }
}

function readName(entry: Json): { readonly name: { readonly name?: string }; readonly owned: string[] } {
  return typeof entry['name'] === 'string'
    ? { name: { name: entry['name'] }, owned: ['name'] }
    : { name: {}, owned: [] };
}

function readAssistant(
  entry: Json,
  run: Run & { readonly id: string; readonly callNames: Map<string, string> },
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
    run.callNames.set(call.id, call.name);
    return call;
  });
  const reasoningKey = ['reasoning_content', 'reasoning'].find((key) => typeof entry[key] === 'string');
  const reasoning = reasoningKey === undefined ? undefined : entry[reasoningKey];
  const { name, owned } = readName(entry);
  const hasCalls = Array.isArray(rawCalls);
  const fields = restOf(entry, [
    'role',
    'content',
    ...owned,
    ...(hasCalls ? ['tool_calls'] : []),
    ...(reasoningKey === undefined ? [] : [reasoningKey]),
  ]);
  const { content, layout } = readContent(entry['content'], run);
  const raw = entry['content'];
  // The writer gives an empty content beside calls as null by itself; "" there is recorded.
  const form =
    raw === null && toolCalls.length > 0
      ? {}
      : raw === '' && toolCalls.length > 0
        ? { content: 'string' }
        : layout;
  const fullLayout = {
    ...form,
    ...(reasoningKey === undefined ? {} : { reasoning: reasoningKey }),
  };
  return {
    id: run.id,
    role: 'assistant',
    content,
    ...name,
    ...(hasCalls ? { toolCalls } : {}),
    ...(typeof reasoning === 'string' ? { reasoning } : {}),
    ...nativeEntry(OPENAI_CHAT, withLayout(fields, fullLayout)),
  };
}

function readToolCall(call: Json): ToolCall {
  const fn = isRecord(call['function']) ? call['function'] : undefined;
  const source = fn ?? call;
  const args = source['arguments'];
  const fnRest = fn === undefined ? {} : restOf(fn, ['name', 'arguments']);
  const rest = restOf(call, ['id', 'function', ...(call['type'] === 'function' ? ['type'] : [])]);
  const native = Object.keys(fnRest).length === 0 ? rest : { ...rest, function: fnRest };
  return {
    id: typeof call['id'] === 'string' ? call['id'] : '',
    name: typeof source['name'] === 'string' ? source['name'] : '',
    arguments:
      typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
    ...nativeEntry(OPENAI_CHAT, native),
  };
}

function readContent(
  raw: unknown,
  run: Run,
): { readonly content: Message['content']; readonly layout: JsonObject } {
  if (typeof raw === 'string') return { content: raw, layout: {} };
  if (raw === undefined) return { content: '', layout: { content: 'absent' } };
  if (raw === null) return { content: '', layout: { content: 'null' } };
  if (!Array.isArray(raw)) {
    throw invalidInput({
      format: FORMAT,
      path: `messages[${run.index}].content`,
      expected: 'a string, an array of content parts or null',
      received: raw,
    });
  }
  const parts = raw.map((item: unknown, position): ContentPart => {
    if (!isRecord(item) || typeof item['type'] !== 'string') {
      throw invalidInput({
        format: FORMAT,
        path: `messages[${run.index}].content[${position}]`,
        expected: 'a content part with a string type',
        received: item,
      });
    }
    // A part of a parsed JSON request is a JSON object.
    return (
      readPart(item) ?? {
        type: 'provider',
        format: OPENAI_CHAT,
        kind: item['type'],
        value: item as JsonObject,
      }
    );
  });
  return { content: parts, layout: {} };
}

function readPart(part: Json): ContentPart | undefined {
  if (part['type'] === 'text' && typeof part['text'] === 'string')
    return { type: 'text', text: part['text'], ...nativeEntry(OPENAI_CHAT, restOf(part, ['type', 'text'])) };
  if (part['type'] === 'image_url') return imagePart(part);
  if (part['type'] === 'file') return filePart(part);
  return undefined;
}

function imagePart(part: Json): ContentPart | undefined {
  const image = part['image_url'];
  if (!isRecord(image) || typeof image['url'] !== 'string' || image['url'] === '') return undefined;
  const url = image['url'];
  const mediaType = parseDataUrl(url)?.mediaType;
  return {
    type: 'image',
    url,
    ...(mediaType === undefined ? {} : { mediaType }),
    ...nativeEntry(
      OPENAI_CHAT,
      nested(restOf(part, ['type', 'image_url']), { image_url: restOf(image, ['url']) }),
    ),
  };
}

function filePart(part: Json): ContentPart | undefined {
  const file = part['file'];
  if (!isRecord(file)) return undefined;
  const data = file['file_data'];
  const parsed = typeof data === 'string' ? parseDataUrl(data) : undefined;
  if (typeof data !== 'string' || parsed === undefined) return undefined;
  const filename = typeof file['filename'] === 'string' ? { filename: file['filename'] } : {};
  const owned = ['file_data', ...(filename.filename === undefined ? [] : ['filename'])];
  return {
    type: 'file',
    url: data,
    mediaType: parsed.mediaType,
    ...filename,
    ...nativeEntry(OPENAI_CHAT, nested(restOf(part, ['type', 'file']), { file: restOf(file, owned) })),
  };
}

/** `fields` with the inner object's extra fields under its key (`image_url`, `file`), when it has any. */
function nested(fields: JsonObject, inner: Readonly<Record<string, JsonObject>>): JsonObject {
  const out: Record<string, JsonObject[string]> = { ...fields };
  for (const [key, value] of Object.entries(inner)) if (Object.keys(value).length > 0) out[key] = value;
  return out;
}

function withLayout(fields: JsonObject, layout: JsonObject): JsonObject {
  return Object.keys(layout).length === 0 ? fields : { ...fields, [LAYOUT_KEY]: layout };
}
