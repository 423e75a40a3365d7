import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import type { AdapterResult, AdapterWarning } from './adapter-warning.js';
import type { ForeignOrigins } from './foreign-origins.js';
import { invalidInput } from './invalid-input.js';
import { LAYOUT_KEY, nativeEntry, restOf } from './native-fields.js';
import {
  isTextItem,
  OPENAI_RESPONSES,
  providerPart,
  readReasoningItem,
  readResponsesContent,
  type TextType,
} from './read-responses-content.js';

/** Options for {@link fromOpenAIResponsesInput}. */
export type FromOpenAIResponsesInputOptions = {
  /** Makes the message ids. @default `responses-<index of the first item>` */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link FromOpenAIResponsesInputOptions}, for `checkOptions`. @internal */
export const FROM_OPENAI_RESPONSES_INPUT_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<FromOpenAIResponsesInputOptions>;

/** Where a message read by {@link fromOpenAIResponsesInput} came from: the items it was read from (an optimisation only). */
export type OpenAIResponsesOrigins = ForeignOrigins<readonly Readonly<Record<string, unknown>>[]>;

/** What {@link fromOpenAIResponsesInput} returns. */
export type FromOpenAIResponsesInputResult = AdapterResult<Message> & {
  /** Optional: pass to `toOpenAIResponsesInput({ origins })` to get the very same items back for unchanged messages. */
  readonly origins: OpenAIResponsesOrigins;
};

type Item = Readonly<Record<string, unknown>>;
const FORMAT = 'OpenAI Responses';
const INPUT_ROLES = ['user', 'system', 'developer'];

/**
 * Converts a Responses API `input` (a string, or items) into ctxloom messages, losslessly:
 * `toOpenAIResponsesInput` gives back the same items (as JSON) from the messages alone. User, system
 * and developer messages become messages (`role: 'developer'` kept native); each run of model output
 * items one assistant message: output text as text parts, each `reasoning` item as a reasoning part
 * (summary as text, `encrypted_content`, `id` and `status` kept), each `function_call` as a tool call
 * (`id`, `status` kept), items ctxloom does not model (`compaction`, web search, computer or MCP
 * calls, item references …) as provider parts kept whole, with the run's item layout recorded; each
 * `function_call_output` a tool message.
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
      const fields = restOf(item, ['content', ...(item['role'] === 'developer' ? [] : ['role'])]);
      const content = this.#content(item['content'], { path: `input[${index}].content`, text: 'input_text' });
      this.#push({ id: this.#id(index), role, content, ...nativeEntry(OPENAI_RESPONSES, fields) }, [item]);
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
    const parts: ContentPart[] = [];
    const toolCalls: ToolCall[] = [];
    const layout: JsonObject[] = [];
    for (const item of group.items) {
      const read = this.#runItem(item);
      if (read.call !== undefined) toolCalls.push(read.call);
      parts.push(...read.parts);
      layout.push(read.layout);
    }
    const [only] = parts;
    const message: Message = {
      id: this.#id(group.index),
      role: 'assistant',
      content: parts.length === 1 && only?.type === 'text' && only.native === undefined ? only.text : parts,
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      native: { [OPENAI_RESPONSES]: { [LAYOUT_KEY]: { items: layout } } },
    };
    this.#push(message, group.items);
  }

  /** One output item of a run: a call, a reasoning part, text parts, or a provider part; with its layout entry. */
  #runItem(item: Item): {
    readonly call?: ToolCall;
    readonly parts: readonly ContentPart[];
    readonly layout: JsonObject;
  } {
    const type = item['type'] ?? 'message';
    const call = type === 'function_call' ? this.#call(item) : undefined;
    if (call !== undefined) return { call, parts: [], layout: { kind: 'call', id: call.id } };
    const reasoning = type === 'reasoning' ? readReasoningItem(item) : undefined;
    if (reasoning !== undefined) return { parts: [reasoning], layout: { kind: 'reasoning' } };
    const texts = type === 'message' ? messageTexts(item) : undefined;
    if (texts === undefined) return { parts: [providerPart(item)], layout: { kind: 'provider' } };
    const fields = restOf(item, ['role', 'content']);
    return {
      parts: texts.parts,
      layout: { kind: 'message', parts: texts.parts.length, fields, ...texts.form },
    };
  }

  #call(item: Item): ToolCall | undefined {
    const { call_id: id, name, arguments: args } = item;
    if (typeof id !== 'string' || typeof name !== 'string' || typeof args !== 'string') return undefined;
    this.#callNames.set(id, name);
    const native = restOf(item, ['type', 'call_id', 'name', 'arguments']);
    return { id, name, arguments: args, ...nativeEntry(OPENAI_RESPONSES, native) };
  }

  #output(item: Item, index: number): void {
    const toolCallId = typeof item['call_id'] === 'string' ? item['call_id'] : '';
    const name = typeof item['name'] === 'string' ? item['name'] : this.#callNames.get(toolCallId);
    const content = this.#content(item['output'], { path: `input[${index}].output`, text: 'input_text' });
    // `name` stays native too: whether the item had one is the caller's.
    const fields = restOf(item, ['type', 'call_id', 'output']);
    this.#push(
      {
        id: this.#id(index),
        role: 'tool',
        content,
        toolCallId,
        ...(name === undefined ? {} : { name }),
        ...nativeEntry(OPENAI_RESPONSES, fields),
      },
      [item],
    );
  }

  #content(raw: unknown, at: { readonly path: string; readonly text: TextType }): Message['content'] {
    const { path } = at;
    if (typeof raw === 'string') return raw;
    if (!Array.isArray(raw))
      throw invalidInput({
        format: FORMAT,
        path,
        expected: 'a string or an array of content items',
        received: raw,
      });
    return raw.map((item: unknown, position) => {
      if (!isRecord(item))
        throw invalidInput({
          format: FORMAT,
          path: `${path}[${position}]`,
          expected: 'a content item',
          received: item,
        });
      return readResponsesContent(item, at.text);
    });
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

/**
 * An assistant message item's text as text parts (a string content as one part, recorded as
 * `string`); `undefined` when it holds anything but text (refusals …): then it is kept whole.
 */
function messageTexts(item: Item): { readonly parts: ContentPart[]; readonly form: JsonObject } | undefined {
  const content = item['content'];
  if (typeof content === 'string')
    return { parts: [{ type: 'text', text: content }], form: { string: true } };
  if (!Array.isArray(content) || !content.every(isTextItem)) return undefined;
  return {
    parts: content.filter(isRecord).map((entry) => readResponsesContent(entry, 'output_text')),
    form: {},
  };
}
