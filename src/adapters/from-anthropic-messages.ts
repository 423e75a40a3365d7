import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import type { AdapterResult, AdapterWarning } from './adapter-warning.js';
import type { AnthropicOrigin, AnthropicOrigins } from './anthropic-origins.js';
import type { AnthropicSystem } from './anthropic-types.js';
import { invalidInput } from './invalid-input.js';
import { TOOL_ERROR_KEY } from './tool-error.js';

/** The part of an Anthropic Messages request ctxloom reads. */
export type AnthropicRequestInput = { readonly system?: unknown; readonly messages: readonly unknown[] };

/** Options for {@link fromAnthropicMessages}. */
export type FromAnthropicMessagesOptions = {
  /** Makes the message ids. @default `anthropic-<index>` (`-<n>` for the further messages read from one) */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link FromAnthropicMessagesOptions}, for `checkOptions`. @internal */
export const FROM_ANTHROPIC_MESSAGES_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<FromAnthropicMessagesOptions>;

/** What {@link fromAnthropicMessages} returns. */
export type FromAnthropicMessagesResult = AdapterResult<Message> & {
  /** Pass to `toAnthropicMessages({ origins })` to get the original objects back. */
  readonly origins: AnthropicOrigins;
};

type Block = Readonly<Record<string, unknown>>;
const FORMAT = 'Anthropic';

/**
 * Converts the `system` and `messages` of an Anthropic Messages request into ctxloom messages,
 * remembering where each came from (see {@link AnthropicOrigins}). Each system block becomes a system
 * message; each `tool_result` a tool message (`is_error` marks `metadata.isError`); the other blocks of
 * a user message one user message; an assistant message one assistant message (thinking as
 * `reasoning`, `tool_use` as tool calls). A content of one text block reads as a string. Blocks
 * ctxloom has no form for (redacted thinking, server tools, search results) are not read, and are
 * given back with their message.
 * @throws ContextError `INVALID_INPUT` naming the path of a field that is not part of a request.
 */
export function fromAnthropicMessages(
  request: AnthropicRequestInput,
  options: FromAnthropicMessagesOptions = {},
): FromAnthropicMessagesResult {
  checkOptions(options, {
    where: 'fromAnthropicMessages options',
    known: FROM_ANTHROPIC_MESSAGES_OPTION_KEYS,
  });
  const reader = new AnthropicReader(options.generateId);
  reader.system(request.system);
  if (!Array.isArray(request.messages)) {
    throw invalidInput({
      format: FORMAT,
      path: 'messages',
      expected: 'an array of messages',
      received: request.messages,
    });
  }
  request.messages.forEach((raw, index) => {
    reader.message(raw, index);
  });
  return { messages: reader.messages, warnings: reader.warnings, origins: reader.origins(request.system) };
}

class AnthropicReader {
  readonly messages: Message[] = [];
  readonly warnings: AdapterWarning[] = [];
  readonly #byId = new Map<string, AnthropicOrigin>();
  readonly #parts = new Map<object, object>();
  readonly #blocks = new Map<object, readonly object[]>();
  readonly #callNames = new Map<string, string>();
  readonly #generateId: IdGenerator | undefined;

  constructor(generateId: IdGenerator | undefined) {
    this.#generateId = generateId;
  }

  origins(system: unknown): AnthropicOrigins {
    // Read and checked by `system()`: a string or text blocks.
    const given = system as AnthropicSystem | undefined;
    return { messages: this.#byId, parts: this.#parts, blocks: this.#blocks, system: given };
  }

  system(raw: unknown): void {
    if (raw === undefined || raw === null) return;
    if (typeof raw === 'string') {
      const holder = { system: raw };
      this.#push(
        { id: this.#id('anthropic-system'), role: 'system', content: raw },
        { source: holder, blocks: [{ type: 'text', text: raw }] },
      );
      return;
    }
    if (!Array.isArray(raw)) {
      throw invalidInput({
        format: FORMAT,
        path: 'system',
        expected: 'a string or an array of text blocks',
        received: raw,
      });
    }
    raw.forEach((block: unknown, position) => {
      if (!isRecord(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') {
        throw invalidInput({
          format: FORMAT,
          path: `system[${position}]`,
          expected: 'a text block',
          received: block,
        });
      }
      this.#push(
        { id: this.#id(`anthropic-system-${position}`), role: 'system', content: block['text'] },
        { source: raw, blocks: [block] },
      );
    });
  }

  message(raw: unknown, index: number): void {
    const path = `messages[${index}]`;
    if (!isRecord(raw))
      throw invalidInput({ format: FORMAT, path, expected: 'a message object', received: raw });
    const role = raw['role'];
    if (role !== 'user' && role !== 'assistant') {
      throw invalidInput({
        format: FORMAT,
        path: `${path}.role`,
        expected: 'user or assistant',
        received: role,
      });
    }
    const blocks = blocksOf(raw['content'], path);
    this.#blocks.set(raw, blocks);
    const ids = { next: 0, base: this.#generateId?.() ?? `anthropic-${index}` };
    const nextId = (): string => {
      ids.next += 1;
      return this.#id(ids.next === 1 ? ids.base : `${ids.base}-${ids.next}`);
    };
    if (role === 'assistant') this.#assistant(raw, { blocks, id: nextId(), index });
    else this.#user(raw, { blocks, nextId, index });
  }

  #user(
    source: Block,
    run: { readonly blocks: readonly Block[]; readonly nextId: () => string; readonly index: number },
  ): void {
    let group: Block[] = [];
    const flush = (): void => {
      if (group.length === 0) return;
      const blocks = group;
      group = [];
      this.#push(
        { id: run.nextId(), role: 'user', content: this.#content(blocks, run.index) },
        { source, blocks },
      );
    };
    for (const block of run.blocks) {
      if (block['type'] !== 'tool_result') {
        group.push(block);
        continue;
      }
      flush();
      const toolCallId = typeof block['tool_use_id'] === 'string' ? block['tool_use_id'] : '';
      const name = this.#callNames.get(toolCallId);
      const raw = block['content'];
      const content =
        typeof raw === 'string'
          ? raw
          : this.#content(Array.isArray(raw) ? raw.filter(isRecord) : [], run.index);
      this.#push(
        {
          id: run.nextId(),
          role: 'tool',
          content,
          toolCallId,
          ...(name === undefined ? {} : { name }),
          ...(block['is_error'] === true ? { metadata: { [TOOL_ERROR_KEY]: true } } : {}),
        },
        { source, blocks: [block] },
      );
    }
    flush();
  }

  #assistant(
    source: Block,
    run: { readonly blocks: readonly Block[]; readonly id: string; readonly index: number },
  ): void {
    const thinking: string[] = [];
    const toolCalls: ToolCall[] = [];
    const texts: Block[] = [];
    for (const block of run.blocks) {
      if (block['type'] === 'thinking') thinking.push(String(block['thinking'] ?? ''));
      else if (block['type'] === 'tool_use') {
        const call = readToolUse(block);
        this.#parts.set(call, block);
        this.#callNames.set(call.id, call.name);
        toolCalls.push(call);
      } else if (block['type'] !== 'redacted_thinking') texts.push(block);
    }
    const message: Message = {
      id: run.id,
      role: 'assistant',
      content: texts.length === 0 ? '' : this.#content(texts, run.index),
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...(thinking.length === 0 ? {} : { reasoning: thinking.join('') }),
    };
    this.#push(message, { source, blocks: run.blocks });
  }

  #content(blocks: readonly Block[], index: number): Message['content'] {
    const parts: ContentPart[] = [];
    for (const block of blocks) {
      const part = readBlock(block);
      if (part === undefined) {
        this.warnings.push({
          type: 'unsupported-part',
          index,
          message: `${String(block['type'])} block not read (given back with its message)`,
        });
        continue;
      }
      this.#parts.set(part, block);
      parts.push(part);
    }
    const [only] = parts;
    return parts.length === 1 && only?.type === 'text' ? only.text : parts;
  }

  #id(wanted: string): string {
    return this.#byId.has(wanted) ? `${wanted}#${this.#byId.size}` : wanted;
  }

  #push(message: Message, origin: { readonly source: object; readonly blocks: readonly object[] }): void {
    this.messages.push(message);
    this.#byId.set(message.id, { ...origin, message });
  }
}

function blocksOf(content: unknown, path: string): readonly Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    throw invalidInput({
      format: FORMAT,
      path: `${path}.content`,
      expected: 'a string or an array of blocks',
      received: content,
    });
  }
  return content.map((block: unknown, position) => {
    if (!isRecord(block) || typeof block['type'] !== 'string') {
      throw invalidInput({
        format: FORMAT,
        path: `${path}.content[${position}]`,
        expected: 'a content block with a string type',
        received: block,
      });
    }
    return block;
  });
}

function readToolUse(block: Block): ToolCall {
  const input = block['input'];
  return {
    id: typeof block['id'] === 'string' ? block['id'] : '',
    name: typeof block['name'] === 'string' ? block['name'] : '',
    arguments: JSON.stringify(input === undefined ? {} : input),
  };
}

function readBlock(block: Block): ContentPart | undefined {
  if (block['type'] === 'text')
    return typeof block['text'] === 'string' ? { type: 'text', text: block['text'] } : undefined;
  const source = block['source'];
  if (!isRecord(source)) return undefined;
  const url = sourceUrl(source);
  if (url === undefined) return undefined;
  if (block['type'] === 'image') {
    const mediaType = typeof source['media_type'] === 'string' ? { mediaType: source['media_type'] } : {};
    return { type: 'image', url, ...mediaType };
  }
  if (block['type'] !== 'document') return undefined;
  const mediaType = typeof source['media_type'] === 'string' ? source['media_type'] : 'application/pdf';
  const title = typeof block['title'] === 'string' ? { filename: block['title'] } : {};
  return { type: 'file', url, mediaType, ...title };
}

function sourceUrl(source: Block): string | undefined {
  if (source['type'] === 'url') return typeof source['url'] === 'string' ? source['url'] : undefined;
  const data = source['data'];
  const mediaType = source['media_type'];
  if (typeof data !== 'string' || typeof mediaType !== 'string') return undefined;
  if (source['type'] === 'base64') return `data:${mediaType};base64,${data}`;
  if (source['type'] === 'text') return `data:${mediaType};base64,${Buffer.from(data).toString('base64')}`;
  return undefined;
}
