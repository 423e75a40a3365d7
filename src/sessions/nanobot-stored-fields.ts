import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { Content, ContentPart, Message, ReasoningPart, ToolCall } from '../core/message.js';
import { setField } from '../core/set-field.js';

/**
 * The key of a session line that holds what nanobot's own fields cannot: the message format 2 fields
 * (`output`, `providerOptions`, `native`, reasoning and provider parts that are not Anthropic thinking
 * blocks, the provider options and native fields of parts and tool calls). nanobot keeps an unknown
 * key of a stored message as it is and never sends it to a provider, so the file stays nanobot's.
 */
export const CTXLOOM_FIELDS_KEY = '_ctxloom_fields';

/** One entry of a list that says where in `content` (or `toolCalls`) something goes back. */
type At<TValue> = { readonly at: number } & TValue;

/**
 * What `_ctxloom_fields` holds; every member is optional and written only when needed.
 * Positions (`at`) are indexes in the message's whole `content` (thinking-block parts included) or
 * `toolCalls`, so a read puts everything back where it was.
 */
export type StoredFields = {
  /** Message fields nanobot has no field for (`output`, `providerOptions`, `native`, …). */
  readonly message?: JsonObject;
  /** True when `thinking_blocks` holds the message's leading reasoning parts. */
  readonly thinkingBlocks?: true;
  /** Whole parts nanobot's `content` must not carry (reasoning, provider), at their positions. */
  readonly parts?: readonly At<{ readonly part: JsonObject }>[];
  /** Fields of parts kept in `content` that nanobot's blocks have no field for. */
  readonly partFields?: readonly At<{ readonly fields: JsonObject }>[];
  /** Fields of tool calls that nanobot's calls have no field for. */
  readonly toolCallFields?: readonly At<{ readonly fields: JsonObject }>[];
};

/** A message split into what nanobot's own fields hold and {@link StoredFields}. */
export type SplitMessage = {
  /** `content` without reasoning and provider parts, each part with only the fields nanobot stores. */
  readonly content: Content;
  /** `toolCalls` with only `id`, `name` and `arguments`. */
  readonly toolCalls: readonly ToolCall[];
  /** nanobot's `thinking_blocks`, when the message starts with Anthropic thinking. */
  readonly thinkingBlocks?: readonly JsonObject[];
  /** The rest, or undefined when nanobot's fields hold the whole message. */
  readonly fields?: StoredFields;
};

/** Message fields nanobot's dict holds (the rest goes to {@link StoredFields.message}). */
const MESSAGE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'role',
  'content',
  'name',
  'toolCallId',
  'toolCalls',
  'reasoning',
  'metadata',
]);
const PART_KEYS: Readonly<Record<'text' | 'image' | 'file', ReadonlySet<string>>> = {
  text: new Set(['type', 'text']),
  image: new Set(['type', 'url', 'mediaType', 'path']),
  file: new Set(['type', 'url', 'mediaType', 'filename', 'path']),
};
const TOOL_CALL_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'arguments']);
const THINKING_KEYS: ReadonlySet<string> = new Set(['type', 'text', 'provider', 'signature']);
const REDACTED_KEYS: ReadonlySet<string> = new Set(['type', 'text', 'provider', 'redactedData']);

/**
 * Splits a message for nanobot's line: an assistant message's leading Anthropic thinking parts (signed
 * thinking, redacted thinking, nothing else on them) become `thinking_blocks` as nanobot and LiteLLM
 * store them (`{type:'thinking', thinking, signature}`, `{type:'redacted_thinking', data}`) unless
 * `thinkingBlocksTaken` (the message already carries nanobot's own `thinking_blocks`); other reasoning
 * and provider parts leave `content` for {@link StoredFields.parts}; fields nanobot has no field for go
 * to the other members of {@link StoredFields}.
 */
export function splitStoredFields(message: Message, thinkingBlocksTaken: boolean): SplitMessage {
  const calls = splitToolCalls(message.toolCalls ?? []);
  const messageFields = extraFields(message, MESSAGE_KEYS);
  const base = {
    ...(messageFields === undefined ? {} : { message: messageFields }),
    ...(calls.fields.length === 0 ? {} : { toolCallFields: calls.fields }),
  };
  if (typeof message.content === 'string')
    return withFields({ content: message.content, toolCalls: calls.calls }, base);
  const parts = message.content;
  const leading = message.role === 'assistant' && !thinkingBlocksTaken ? leadingThinking(parts) : [];
  const moved: At<{ part: JsonObject }>[] = [];
  const partFields: At<{ fields: JsonObject }>[] = [];
  const kept: ContentPart[] = [];
  parts.forEach((part, at) => {
    if (at < leading.length) return;
    if (part.type === 'reasoning' || part.type === 'provider') {
      moved.push({ at, part: jsonOf(part) });
      return;
    }
    const fields = extraFields(part, PART_KEYS[part.type]);
    if (fields !== undefined) partFields.push({ at, fields });
    kept.push(fields === undefined ? part : pick(part, PART_KEYS[part.type]));
  });
  const fields: StoredFields = {
    ...base,
    ...(leading.length === 0 ? {} : { thinkingBlocks: true as const }),
    ...(moved.length === 0 ? {} : { parts: moved }),
    ...(partFields.length === 0 ? {} : { partFields }),
  };
  const split = withFields({ content: kept, toolCalls: calls.calls }, fields);
  return leading.length === 0 ? split : { ...split, thinkingBlocks: leading };
}

/**
 * Puts {@link StoredFields} back into a message read from nanobot's fields: `thinkingParts` (read from
 * `thinking_blocks`) first, moved parts at their positions, then the fields of parts, calls and the
 * message. Returns undefined when the fields do not fit the message (a position past the end, a part
 * that is not an object), so the caller keeps the line's fields as unknown ones instead.
 */
export function joinStoredFields(
  message: Message,
  stored: { readonly fields: StoredFields; readonly thinkingParts: readonly ReasoningPart[] },
): Message | undefined {
  const { fields } = stored;
  const content = joinContent(message.content, stored);
  const calls = message.toolCalls ?? [];
  const toolCalls = withFieldsAt(calls, fields.toolCallFields);
  if (content === undefined || toolCalls === undefined) return undefined;
  return {
    ...message,
    content,
    ...(calls.length === 0 ? {} : { toolCalls }),
    ...fields.message,
  } as Message;
}

function joinContent(
  content: Content,
  stored: { readonly fields: StoredFields; readonly thinkingParts: readonly ReasoningPart[] },
): Content | undefined {
  const { fields, thinkingParts } = stored;
  if (thinkingParts.length === 0 && fields.parts === undefined && fields.partFields === undefined)
    return content;
  if (typeof content === 'string') return undefined;
  const list: ContentPart[] = [...thinkingParts, ...content];
  for (const { at, part } of fields.parts ?? []) {
    if (at > list.length) return undefined;
    // Written by splitStoredFields from a reasoning or provider part.
    list.splice(at, 0, part as unknown as ContentPart);
  }
  return withFieldsAt(list, fields.partFields);
}

/** `items` with each entry's fields laid over the item at its position; undefined when one is past the end. */
function withFieldsAt<TItem extends object>(
  items: readonly TItem[],
  entries: readonly At<{ readonly fields: JsonObject }>[] | undefined,
): readonly TItem[] | undefined {
  if (entries === undefined) return items;
  const result = [...items];
  for (const { at, fields } of entries) {
    const item = result[at];
    if (item === undefined) return undefined;
    // The fields were split off this item by splitStoredFields.
    result[at] = { ...item, ...fields } as TItem;
  }
  return result;
}

/** Reads `_ctxloom_fields`, or returns undefined when it is not what {@link splitStoredFields} writes. */
export function parseStoredFields(value: unknown): StoredFields | undefined {
  if (!isRecord(value)) return undefined;
  const { message, thinkingBlocks, parts, partFields, toolCallFields, ...rest } = value;
  if (Object.keys(rest).length > 0) return undefined;
  if (
    message !== undefined &&
    (!isRecord(message) || Object.keys(message).some((key) => MESSAGE_KEYS.has(key)))
  )
    return undefined;
  if (thinkingBlocks !== undefined && thinkingBlocks !== true) return undefined;
  if (!isPlaced(parts, 'part') || !isPlaced(partFields, 'fields') || !isPlaced(toolCallFields, 'fields'))
    return undefined;
  // Checked field by field above; the values are JSON read from the line.
  return value as StoredFields;
}

/**
 * The reasoning parts nanobot's `thinking_blocks` hold, or undefined when a block is not exactly one
 * {@link splitStoredFields} writes.
 */
export function thinkingParts(value: unknown): readonly ReasoningPart[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const parts: ReasoningPart[] = [];
  for (const block of value) {
    if (!isRecord(block)) return undefined;
    const keys = Object.keys(block).sort().join(',');
    if (
      keys === 'signature,thinking,type' &&
      block['type'] === 'thinking' &&
      typeof block['thinking'] === 'string' &&
      typeof block['signature'] === 'string'
    ) {
      parts.push({
        type: 'reasoning',
        text: block['thinking'],
        provider: 'anthropic',
        signature: block['signature'],
      });
    } else if (
      keys === 'data,type' &&
      block['type'] === 'redacted_thinking' &&
      typeof block['data'] === 'string'
    ) {
      parts.push({ type: 'reasoning', text: '', provider: 'anthropic', redactedData: block['data'] });
    } else return undefined;
  }
  return parts;
}

function leadingThinking(parts: readonly ContentPart[]): readonly JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const part of parts) {
    const block = part.type === 'reasoning' ? thinkingBlock(part) : undefined;
    if (block === undefined) break;
    blocks.push(block);
  }
  return blocks;
}

function thinkingBlock(part: ReasoningPart): JsonObject | undefined {
  if (part.provider !== 'anthropic') return undefined;
  if (part.signature !== undefined && hasOnly(part, THINKING_KEYS))
    return { type: 'thinking', thinking: part.text, signature: part.signature };
  if (part.redactedData !== undefined && part.text === '' && hasOnly(part, REDACTED_KEYS))
    return { type: 'redacted_thinking', data: part.redactedData };
  return undefined;
}

function splitToolCalls(calls: readonly ToolCall[]): {
  calls: readonly ToolCall[];
  fields: readonly At<{ fields: JsonObject }>[];
} {
  const fields: At<{ fields: JsonObject }>[] = [];
  const plain = calls.map((call, at) => {
    const extra = extraFields(call, TOOL_CALL_KEYS);
    if (extra === undefined) return call;
    fields.push({ at, fields: extra });
    return { id: call.id, name: call.name, arguments: call.arguments };
  });
  return { calls: plain, fields };
}

function withFields(split: SplitMessage, fields: StoredFields): SplitMessage {
  return Object.keys(fields).length === 0 ? split : { ...split, fields };
}

/** The fields of `value` outside `known` that hold a value, or undefined when there are none. */
function extraFields(value: object, known: ReadonlySet<string>): JsonObject | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    if (known.has(key) || field === undefined) continue;
    extra ??= {};
    setField(extra, key, field);
  }
  // Message data is JSON by contract (core/message.ts).
  return extra as JsonObject | undefined;
}

function hasOnly(value: object, known: ReadonlySet<string>): boolean {
  return Object.entries(value).every(([key, field]) => known.has(key) || field === undefined);
}

function pick<TPart extends ContentPart>(part: TPart, known: ReadonlySet<string>): TPart {
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(part)) if (known.has(key)) setField(kept, key, field);
  // The same part with only its known fields.
  return kept as TPart;
}

function jsonOf(part: ContentPart): JsonObject {
  // Parts are JSON by contract (core/message.ts).
  return part as unknown as JsonObject;
}

function isPlaced(value: unknown, member: string): boolean {
  if (value === undefined) return true;
  return (
    Array.isArray(value) &&
    value.every(
      (entry) =>
        isRecord(entry) &&
        Number.isInteger(entry['at']) &&
        (entry['at'] as number) >= 0 &&
        isRecord(entry[member]),
    )
  );
}
