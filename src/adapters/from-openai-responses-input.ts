import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import { type AdapterResult, type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import type { ForeignOrigins } from './foreign-origins.js';
import { invalidInput } from './invalid-input.js';

/** Options for {@link fromOpenAIResponsesInput}. */
export type FromOpenAIResponsesInputOptions = {
  /** Makes the message ids. @default `responses-<index of the first item>` */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link FromOpenAIResponsesInputOptions}, for `checkOptions`. @internal */
export const FROM_OPENAI_RESPONSES_INPUT_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<FromOpenAIResponsesInputOptions>;

/** Where a message read by {@link fromOpenAIResponsesInput} came from: the items it was read from. */
export type OpenAIResponsesOrigins = ForeignOrigins<readonly Readonly<Record<string, unknown>>[]>;

/** What {@link fromOpenAIResponsesInput} returns. */
export type FromOpenAIResponsesInputResult = AdapterResult<Message> & {
  /** Pass to `toOpenAIResponsesInput({ origins })` to get the original items back. */
  readonly origins: OpenAIResponsesOrigins;
};

type Item = Readonly<Record<string, unknown>>;
const FORMAT = 'OpenAI Responses';
const INPUT_ROLES = ['user', 'system', 'developer'];

/**
 * Converts a Responses API `input` (a string, or items) into ctxloom messages, remembering the items
 * each came from: `toOpenAIResponsesInput(messages, { origins })` gives back the very same items for
 * every message ctxloom did not change. User, system and developer messages become messages; each
 * run of model output items (assistant `message`s, `reasoning`, `function_call`s) one assistant
 * message (output text as content, reasoning summaries as `reasoning`, calls as tool calls); each
 * `function_call_output` a tool message. Items ctxloom does not model (web search, computer or MCP
 * calls, item references …) join the run of output items around them and are given back untouched.
 * @throws ContextError `INVALID_INPUT` naming the path of an item that cannot be read.
 */
export function fromOpenAIResponsesInput(
  input: string | readonly unknown[],
  options: FromOpenAIResponsesInputOptions = {},
): FromOpenAIResponsesInputResult {
  checkOptions(options, {
    where: 'fromOpenAIResponsesInput options',
    known: FROM_OPENAI_RESPONSES_INPUT_OPTION_KEYS,
  });
  const reader = new ResponsesReader(options.generateId);
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  items.forEach((raw, index) => {
    if (!isRecord(raw))
      throw invalidInput({
        format: FORMAT,
        path: `input[${index}]`,
        expected: 'an item object',
        received: raw,
      });
    reader.read(raw, index);
  });
  reader.close();
  return { messages: reader.messages, warnings: reader.warnings, origins: reader.origins };
}

type Group = { readonly index: number; readonly items: Item[] };

class ResponsesReader {
  readonly messages: Message[] = [];
  readonly warnings: AdapterWarning[] = [];
  readonly origins = {
    messages: new Map<string, { source: readonly Item[]; message: Message }>(),
    parts: new Map<object, object>(),
  };
  readonly #callNames = new Map<string, string>();
  readonly #generateId: IdGenerator | undefined;
  #group: Group | undefined;

  constructor(generateId: IdGenerator | undefined) {
    this.#generateId = generateId;
  }

  read(item: Item, index: number): void {
    const type = item['type'] ?? 'message';
    if (type === 'message' && INPUT_ROLES.includes(String(item['role']))) {
      this.close();
      const role = item['role'] === 'user' ? 'user' : 'system';
      this.#push(
        {
          id: this.#id(index),
          role,
          content: this.#content(item['content'], { index, path: `input[${index}].content` }),
        },
        [item],
      );
      return;
    }
    if (type === 'message' && item['role'] !== 'assistant') {
      throw invalidInput({
        format: FORMAT,
        path: `input[${index}].role`,
        expected: 'user, assistant, system or developer',
        received: item['role'],
      });
    }
    if (type === 'function_call_output') {
      this.close();
      this.#output(item, index);
      return;
    }
    this.#group ??= { index, items: [] };
    this.#group.items.push(item);
  }

  close(): void {
    const group = this.#group;
    if (group === undefined) return;
    this.#group = undefined;
    const texts: ContentPart[] = [];
    const reasoning: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const item of group.items) {
      if (item['type'] === 'function_call') toolCalls.push(this.#call(item));
      else if (item['type'] === 'reasoning') reasoning.push(summaryOf(item));
      else if ((item['type'] ?? 'message') === 'message') texts.push(...this.#outputText(item, group.index));
    }
    const [only] = texts;
    const message: Message = {
      id: this.#id(group.index),
      role: 'assistant',
      content: texts.length === 1 && only?.type === 'text' ? only.text : texts,
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...(reasoning.length === 0 ? {} : { reasoning: reasoning.join('\n') }),
    };
    this.#push(message, group.items);
  }

  #outputText(item: Item, index: number): ContentPart[] {
    const content = this.#content(item['content'], { index, path: `input[${index}].content` });
    return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  }

  #call(item: Item): ToolCall {
    const args = item['arguments'];
    const call: ToolCall = {
      id: stringOr(item['call_id']),
      name: stringOr(item['name']),
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    };
    this.origins.parts.set(call, item);
    this.#callNames.set(call.id, call.name);
    return call;
  }

  #output(item: Item, index: number): void {
    const toolCallId = stringOr(item['call_id']);
    const name = this.#callNames.get(toolCallId);
    this.#push(
      {
        id: this.#id(index),
        role: 'tool',
        content: this.#content(item['output'], { index, path: `input[${index}].output` }),
        toolCallId,
        ...(name === undefined ? {} : { name }),
      },
      [item],
    );
  }

  #content(raw: unknown, at: { readonly index: number; readonly path: string }): Message['content'] {
    const { index, path } = at;
    if (typeof raw === 'string') return raw;
    if (!Array.isArray(raw))
      throw invalidInput({
        format: FORMAT,
        path,
        expected: 'a string or an array of content items',
        received: raw,
      });
    const parts: ContentPart[] = [];
    raw.forEach((item: unknown, position) => {
      if (!isRecord(item))
        throw invalidInput({
          format: FORMAT,
          path: `${path}[${position}]`,
          expected: 'a content item',
          received: item,
        });
      const part = readContent(item);
      if (part === undefined) {
        this.warnings.push({
          type: 'unsupported-part',
          index,
          message: `${String(item['type'])} content at ${path}[${position}] not read (given back with its item)`,
        });
        return;
      }
      if (item['type'] === 'refusal')
        this.warnings.push({
          type: 'converted',
          index,
          message: `refusal at ${path}[${position}] read as text`,
        });
      this.origins.parts.set(part, item);
      parts.push(part);
    });
    return parts;
  }

  #id(index: number): string {
    const wanted = this.#generateId?.() ?? `responses-${index}`;
    return this.origins.messages.has(wanted) ? `${wanted}#${this.messages.length}` : wanted;
  }

  #push(message: Message, source: readonly Item[]): void {
    this.messages.push(message);
    this.origins.messages.set(message.id, { source, message });
  }
}

/** The summary texts of a reasoning item, one per line. */
function summaryOf(item: Item): string {
  const summary = Array.isArray(item['summary']) ? item['summary'] : [];
  return summary
    .flatMap((part: unknown) => (isRecord(part) && typeof part['text'] === 'string' ? [part['text']] : []))
    .join('\n');
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function readContent(item: Item): ContentPart | undefined {
  const type = item['type'];
  if ((type === 'input_text' || type === 'output_text') && typeof item['text'] === 'string')
    return { type: 'text', text: item['text'] };
  if (type === 'refusal' && typeof item['refusal'] === 'string')
    return { type: 'text', text: item['refusal'] };
  if (type === 'input_image' && typeof item['image_url'] === 'string') {
    const mediaType = parseDataUrl(item['image_url'])?.mediaType;
    return { type: 'image', url: item['image_url'], ...(mediaType === undefined ? {} : { mediaType }) };
  }
  if (type !== 'input_file') return undefined;
  const url = typeof item['file_data'] === 'string' ? item['file_data'] : item['file_url'];
  if (typeof url !== 'string') return undefined;
  const mediaType =
    parseDataUrl(url)?.mediaType ??
    (url.toLowerCase().endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream');
  return {
    type: 'file',
    url,
    mediaType,
    ...(typeof item['filename'] === 'string' ? { filename: item['filename'] } : {}),
  };
}
