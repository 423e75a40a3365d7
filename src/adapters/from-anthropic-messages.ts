import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import type { AdapterResult, AdapterWarning } from './adapter-warning.js';
import type { AnthropicOrigin, AnthropicOrigins } from './anthropic-origins.js';
import type { AnthropicSystem } from './anthropic-types.js';
import { invalidInput } from './invalid-input.js';
import { LAYOUT_KEY, nativeEntry, restOf } from './native-fields.js';
import { ANTHROPIC, readAnthropicBlock, readAnthropicToolUse } from './read-anthropic-block.js';

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
  /** Optional: pass to `toAnthropicMessages({ origins })` to get the very same objects back for unchanged turns. */
  readonly origins: AnthropicOrigins;
};

type Block = Readonly<Record<string, unknown>>;
const FORMAT = 'Anthropic';

/**
 * Converts the `system` and `messages` of an Anthropic Messages request into ctxloom messages,
 * losslessly: `toAnthropicMessages` gives back the same request (as JSON) from the messages alone,
 * after any store or process. Each system block becomes a system message; each `tool_result` a tool
 * message (`is_error` as `output: 'error-text'`); the other blocks of a user message one user
 * message; an assistant message one assistant message (`tool_use` as tool calls, signed and redacted
 * thinking as reasoning parts, in order). Blocks ctxloom does not model (`compaction`,
 * `server_tool_use`, `web_search_tool_result`, search results, …) become provider parts, kept whole;
 * fields it does not model (`cache_control`, `citations`, unknown keys) go to `native.anthropic`. A
 * content of one plain text block reads as a string.
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
  readonly #sizes = new Map<object, number>();
  readonly #callNames = new Map<string, string>();
  readonly #generateId: IdGenerator | undefined;

  constructor(generateId: IdGenerator | undefined) {
    this.#generateId = generateId;
  }

  origins(system: unknown): AnthropicOrigins {
    // Read and checked by `system()`: a string or text blocks.
    const given = system as AnthropicSystem | undefined;
    return { messages: this.#byId, sizes: this.#sizes, system: given };
  }

  system(raw: unknown): void {
    if (raw === undefined || raw === null) return;
    if (typeof raw === 'string') {
      this.#push({ id: this.#id('anthropic-system'), role: 'system', content: raw }, raw);
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
      // `type: 'text'` stays in the native fields: it records that the system was given as blocks.
      const native = nativeEntry(ANTHROPIC, restOf(block, ['text']));
      const id = this.#id(`anthropic-system-${position}`);
      this.#push({ id, role: 'system', content: block['text'], ...native }, raw);
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
    const ids = { next: 0, base: this.#generateId?.() ?? `anthropic-${index}` };
    const nextId = (): string => {
      ids.next += 1;
      return this.#id(ids.next === 1 ? ids.base : `${ids.base}-${ids.next}`);
    };
    const fields = restOf(raw, ['role', 'content']);
    const isString = typeof raw['content'] === 'string';
    if (role === 'assistant') this.#assistant(raw, { blocks, id: nextId(), fields, isString });
    else this.#user(raw, { blocks, nextId, fields, isString, path });
  }

  #user(
    source: Block,
    run: {
      readonly blocks: readonly Block[];
      readonly nextId: () => string;
      readonly fields: JsonObject;
      readonly isString: boolean;
      readonly path: string;
    },
  ): void {
    let group: Block[] = [];
    let isFirst = true;
    /** The Anthropic message's own fields go to the first ctxloom message read from it. */
    const messageFields = (): JsonObject => {
      const fields = isFirst ? run.fields : {};
      isFirst = false;
      return fields;
    };
    const flush = (): void => {
      if (group.length === 0) return;
      const blocks = group;
      group = [];
      const layout = run.isString ? { content: 'string' } : {};
      const native = withLayout(messageFields(), layout);
      this.#push(
        { id: run.nextId(), role: 'user', content: contentOf(blocks), ...nativeEntry(ANTHROPIC, native) },
        source,
      );
    };
    run.blocks.forEach((block, position) => {
      if (block['type'] !== 'tool_result') {
        group.push(block);
        return;
      }
      flush();
      const path = `${run.path}.content[${position}]`;
      this.#toolResult(block, { source, id: run.nextId(), messageFields: messageFields(), path });
    });
    flush();
  }

  #toolResult(
    block: Block,
    run: {
      readonly source: Block;
      readonly id: string;
      readonly messageFields: JsonObject;
      readonly path: string;
    },
  ): void {
    const toolCallId = typeof block['tool_use_id'] === 'string' ? block['tool_use_id'] : '';
    const name = this.#callNames.get(toolCallId);
    const raw = block['content'];
    const isError = block['is_error'] === true;
    const owned = ['type', 'tool_use_id', 'content', ...(isError ? ['is_error'] : [])];
    const layout = {
      ...(raw === undefined ? { content: 'absent' } : {}),
      ...(Object.keys(run.messageFields).length === 0 ? {} : { message: run.messageFields }),
    };
    const content =
      typeof raw === 'string'
        ? raw
        : Array.isArray(raw)
          ? blocksOf(raw, run.path).map(readAnthropicBlock)
          : '';
    this.#push(
      {
        id: run.id,
        role: 'tool',
        content,
        toolCallId,
        ...(name === undefined ? {} : { name }),
        ...(isError ? { output: 'error-text' } : {}),
        ...nativeEntry(ANTHROPIC, withLayout(restOf(block, owned), layout)),
      },
      run.source,
    );
  }

  #assistant(
    source: Block,
    run: {
      readonly blocks: readonly Block[];
      readonly id: string;
      readonly fields: JsonObject;
      readonly isString: boolean;
    },
  ): void {
    const toolCalls: ToolCall[] = [];
    const toolUses: number[] = [];
    const parts: ContentPart[] = [];
    run.blocks.forEach((block, position) => {
      const call = block['type'] === 'tool_use' ? readAnthropicToolUse(block) : undefined;
      if (call === undefined) {
        parts.push(readAnthropicBlock(block));
        return;
      }
      this.#callNames.set(call.id, call.name);
      toolCalls.push(call);
      toolUses.push(position);
    });
    const isTrailing = toolUses.every(
      (position, at) => position === run.blocks.length - toolUses.length + at,
    );
    const layout = {
      ...(run.isString ? { content: 'string' } : {}),
      ...(isTrailing ? {} : { toolUses }),
    };
    const message: Message = {
      id: run.id,
      role: 'assistant',
      content: parts.length === 0 ? '' : simplified(parts),
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...nativeEntry(ANTHROPIC, withLayout(run.fields, layout)),
    };
    this.#push(message, source);
  }

  #id(wanted: string): string {
    return this.#byId.has(wanted) ? `${wanted}#${this.#byId.size}` : wanted;
  }

  #push(message: Message, source: object | string): void {
    this.messages.push(message);
    // A string system prompt has no object of its own: its messages are matched by `origins.system`.
    if (typeof source === 'string') return;
    this.#byId.set(message.id, { source, message });
    this.#sizes.set(source, (this.#sizes.get(source) ?? 0) + 1);
  }
}

function contentOf(blocks: readonly Block[]): Message['content'] {
  return simplified(blocks.map(readAnthropicBlock));
}

/** One plain text part (no native fields) reads as a string. */
function simplified(parts: readonly ContentPart[]): Message['content'] {
  const [only] = parts;
  return parts.length === 1 && only?.type === 'text' && only.native === undefined ? only.text : parts;
}

function withLayout(fields: JsonObject, layout: JsonObject): JsonObject {
  return Object.keys(layout).length === 0 ? fields : { ...fields, [LAYOUT_KEY]: layout };
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
