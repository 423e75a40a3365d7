import { ContextError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import { type AdapterResult, type AdapterWarning, parseDataUrl } from './adapter-warning.js';

/** Options for {@link fromOpenAIChatMessages}. */
export type FromOpenAIChatMessagesOptions = {
  /** Makes the message ids. @default `openai-<index>` */
  readonly generateId?: IdGenerator;
};

type Json = Readonly<Record<string, unknown>>;

/**
 * Converts OpenAI chat completions `messages` (as sent or stored, possibly from a relay) into
 * ctxloom messages. Lenient where real data is broken, so the governor can repair it: a tool call
 * with `name: null` becomes `name: ''`, a missing id `''`, non-string arguments are serialised to
 * JSON. `developer` becomes `system`; `reasoning_content` (or `reasoning`) becomes `reasoning`; a tool
 * message gets the name of the call it answers. Anything dropped or changed is named in the warnings.
 * @throws ContextError `INVALID_INPUT` when an entry is not an object or has an unknown role.
 */
export function fromOpenAIChatMessages(
  input: readonly unknown[],
  options: FromOpenAIChatMessagesOptions = {},
): AdapterResult<Message> {
  const warnings: AdapterWarning[] = [];
  const callNames = new Map<string, string>();
  const messages: Message[] = [];
  input.forEach((raw, index) => {
    if (typeof raw !== 'object' || raw === null) {
      throw new ContextError({
        code: 'INVALID_INPUT',
        message: `OpenAI message ${index} is not an object; pass the request's messages array.`,
      });
    }
    const id = options.generateId?.() ?? `openai-${index}`;
    messages.push(readMessage(raw as Json, { id, index, warnings, callNames })); // checked: a non-null object
  });
  return { messages, warnings };
}

function readMessage(
  entry: Json,
  context: {
    readonly id: string;
    readonly index: number;
    readonly warnings: AdapterWarning[];
    readonly callNames: Map<string, string>;
  },
): Message {
  const name = typeof entry['name'] === 'string' ? { name: entry['name'] } : {};
  const run = { index: context.index, warnings: context.warnings };
  switch (entry['role']) {
    case 'system':
    case 'developer':
      if (entry['role'] === 'developer')
        context.warnings.push({
          type: 'converted',
          index: context.index,
          message: 'developer message read as system',
        });
      return { id: context.id, role: 'system', content: readContent(entry['content'], run), ...name };
    case 'user':
      return { id: context.id, role: 'user', content: readContent(entry['content'], run), ...name };
    case 'assistant':
      return readAssistant(entry, { id: context.id, name, callNames: context.callNames, ...run });
    case 'tool': {
      const toolCallId = typeof entry['tool_call_id'] === 'string' ? entry['tool_call_id'] : '';
      const toolName = context.callNames.get(toolCallId);
      return {
        id: context.id,
        role: 'tool',
        content: readContent(entry['content'], run),
        toolCallId,
        ...(toolName === undefined ? {} : { name: toolName }),
      };
    }
    default:
      throw new ContextError({
        code: 'INVALID_INPUT',
        message: `OpenAI message ${context.index} has role ${JSON.stringify(entry['role'])}; expected system, developer, user, assistant or tool.`,
      });
  }
}

function readAssistant(
  entry: Json,
  run: {
    readonly id: string;
    readonly name: { readonly name?: string };
    readonly callNames: Map<string, string>;
    readonly index: number;
    readonly warnings: AdapterWarning[];
  },
): Message {
  const rawCalls = Array.isArray(entry['tool_calls']) ? (entry['tool_calls'] as readonly unknown[]) : [];
  const toolCalls = rawCalls.map(readToolCall);
  for (const call of toolCalls) run.callNames.set(call.id, call.name);
  if (entry['function_call'] !== undefined && entry['function_call'] !== null) {
    run.warnings.push({ type: 'dropped-field', index: run.index, message: 'legacy function_call left out' });
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
    ...(toolCalls.length === 0 && !Array.isArray(entry['tool_calls']) ? {} : { toolCalls }),
    ...(typeof reasoning === 'string' ? { reasoning } : {}),
  };
}

function readToolCall(raw: unknown): ToolCall {
  const call = typeof raw === 'object' && raw !== null ? (raw as Json) : {}; // checked: an object or nothing
  const fn =
    typeof call['function'] === 'object' && call['function'] !== null ? (call['function'] as Json) : call; // checked
  const args = fn['arguments'];
  return {
    id: typeof call['id'] === 'string' ? call['id'] : '',
    name: typeof fn['name'] === 'string' ? fn['name'] : '',
    arguments:
      typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
  };
}

function readContent(
  raw: unknown,
  run: { readonly index: number; readonly warnings: AdapterWarning[] },
): Message['content'] {
  if (typeof raw === 'string') return raw;
  if (!Array.isArray(raw)) {
    if (raw !== undefined && raw !== null)
      run.warnings.push({
        type: 'converted',
        index: run.index,
        message: 'non-text content serialised to JSON',
      });
    return raw === undefined || raw === null ? '' : JSON.stringify(raw);
  }
  const parts: ContentPart[] = [];
  for (const item of raw as readonly unknown[]) {
    const part = readPart(item);
    if (part === undefined) {
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `part ${JSON.stringify((item as Json | null)?.['type'] ?? null)} left out`,
      });
    } else {
      if (part.converted)
        run.warnings.push({ type: 'converted', index: run.index, message: 'refusal read as text' });
      parts.push(part.part);
    }
  }
  return parts;
}

function readPart(item: unknown): { readonly part: ContentPart; readonly converted: boolean } | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const part = item as Json; // checked: a non-null object
  if (part['type'] === 'text' && typeof part['text'] === 'string')
    return { part: { type: 'text', text: part['text'] }, converted: false };
  if (part['type'] === 'refusal' && typeof part['refusal'] === 'string')
    return { part: { type: 'text', text: part['refusal'] }, converted: true };
  if (part['type'] === 'image_url') {
    const image = part['image_url'];
    const url =
      typeof image === 'string'
        ? image
        : typeof image === 'object' && image !== null
          ? (image as Json)['url']
          : undefined;
    if (typeof url !== 'string' || url === '') return undefined;
    const mediaType = parseDataUrl(url)?.mediaType;
    return {
      part: { type: 'image', url, ...(mediaType === undefined ? {} : { mediaType }) },
      converted: false,
    };
  }
  if (part['type'] === 'file' && typeof part['file'] === 'object' && part['file'] !== null) {
    const file = part['file'] as Json; // checked: a non-null object
    const data = file['file_data'];
    const parsed = typeof data === 'string' ? parseDataUrl(data) : undefined;
    if (typeof data !== 'string' || parsed === undefined) return undefined;
    const filename = typeof file['filename'] === 'string' ? { filename: file['filename'] } : {};
    return { part: { type: 'file', url: data, mediaType: parsed.mediaType, ...filename }, converted: false };
  }
  return undefined;
}
