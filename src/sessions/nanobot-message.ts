import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { assertNever } from '../core/assert-never.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message, ReasoningPart, Role, ToolCall } from '../core/message.js';
import { RUNTIME_CONTEXT_KEY } from '../core/runtime-context-marker.js';
import { setField } from '../core/set-field.js';
import {
  CTXLOOM_FIELDS_KEY,
  joinStoredFields,
  parseStoredFields,
  type StoredFields,
  splitStoredFields,
  thinkingParts,
} from './nanobot-stored-fields.js';

/** A message as nanobot stores it: an OpenAI-chat-shaped JSON object. */
export type NanobotDict = { readonly [key: string]: unknown };

/** Metadata keys the converter owns. */
export const NANOBOT_EXTRA_KEY = 'nanobot';
/** The runtime-context marker (`{ version: 1, sources, suffix | blocks }`), nanobot's `_runtime_context`. */
export { RUNTIME_CONTEXT_KEY } from '../core/runtime-context-marker.js';

const TIMESTAMP = 'timestamp';

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

/**
 * The fields the converter maps onto {@link Message}, each with the test for a value it can hold as it
 * is. A field whose value fails its test (a `tool_call_id` on a user message, a `null` name, …) is kept
 * in `metadata.nanobot` instead, like every unknown field. `content` and `tool_calls` are converted
 * and, when the conversion would lose something, also kept as they were (see {@link fromNanobotDict}).
 */
const MODELLED: Readonly<Record<string, (value: unknown, role: Role) => boolean>> = {
  id: (value) => typeof value === 'string' && value !== '',
  role: () => true,
  content: () => true,
  tool_calls: () => true,
  timestamp: (value) => typeof value === 'string',
  tool_call_id: (value, role) => role === 'tool' && typeof value === 'string',
  name: (value) => typeof value === 'string',
  reasoning_content: (value) => typeof value === 'string',
  _runtime_context: (value) => isRecord(value),
  _ctxloom: (value) => isRecord(value),
};

/**
 * Converts a nanobot message dict into a {@link Message}, or returns why it cannot (not an object,
 * unknown role). Field mapping: `tool_calls` `{id, type:'function', function:{name, arguments}}` →
 * `toolCalls` `{id, name, arguments}` (object arguments become JSON text); `tool_call_id` →
 * `toolCallId`; `reasoning_content` → `reasoning`; `timestamp` → `metadata.timestamp`;
 * `_runtime_context` → `metadata.runtimeContext`; `image_url` blocks → image parts (with `_meta.path`).
 * Nothing is lost: every other field (`media`, `_command`, `thinking_blocks`, `latency_ms`, a
 * `tool_call_id` on a user message, …) is kept in `metadata.nanobot`, and `content` or `tool_calls`
 * that the mapping cannot hold exactly (`cache_control` on a block, `image_url.detail`, extra keys of
 * a call such as `index` or `extra_content`, `content: null`) are kept there as they were, so
 * {@link toNanobotDict} writes them back while the message still says the same. A line ctxloom wrote
 * also carries `_ctxloom_fields` (message format 2: `output`, `providerOptions`, `native`, reasoning and
 * provider parts, see {@link StoredFields}); when it says so, `thinking_blocks` are the message's leading
 * Anthropic reasoning parts. `thinking_blocks` nanobot wrote itself stay in `metadata.nanobot`.
 * `fallbackId` names messages stored without an `id`.
 */
export function fromNanobotDict(value: unknown, fallbackId: string): Message | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  // A non-null, non-array value parsed from JSON is a plain record.
  const dict = value as NanobotDict;
  const role = dict['role'];
  if (typeof role !== 'string' || !ROLES.includes(role as Role))
    return `unknown role ${JSON.stringify(role)}`;
  // Checked against ROLES above.
  const known = role as Role;
  const stored = storedFieldsOf(dict, known);
  if (stored !== undefined) {
    const message = joinStoredFields(convert(dict, { id: fallbackId, role: known, stored }), stored);
    if (message !== undefined) return message;
  }
  return convert(dict, { id: fallbackId, role: known, stored: undefined });
}

type Stored = { readonly fields: StoredFields; readonly thinkingParts: readonly ReasoningPart[] };

/** The line's `_ctxloom_fields` (and the thinking blocks it claims), when they are what ctxloom writes. */
function storedFieldsOf(dict: NanobotDict, role: Role): Stored | undefined {
  if (dict[CTXLOOM_FIELDS_KEY] === undefined) return undefined;
  const fields = parseStoredFields(dict[CTXLOOM_FIELDS_KEY]);
  if (fields === undefined) return undefined;
  if (fields.thinkingBlocks !== true) return { fields, thinkingParts: [] };
  const parts = role === 'assistant' ? thinkingParts(dict['thinking_blocks']) : undefined;
  return parts === undefined ? undefined : { fields, thinkingParts: parts };
}

/** The message nanobot's fields hold; with `stored`, `_ctxloom_fields` (and the thinking blocks it claims) are not unknown fields. */
function convert(
  dict: NanobotDict,
  conversion: { readonly id: string; readonly role: Role; readonly stored: Stored | undefined },
): Message {
  const { role: known, stored, id: fallbackId } = conversion;
  const content = contentFromNanobot(dict['content']);
  const toolCalls = toolCallsFromNanobot(dict['tool_calls'], known);
  const claimed =
    stored === undefined
      ? NOTHING_CLAIMED
      : stored.fields.thinkingBlocks === true
        ? CLAIMED_WITH_THINKING
        : CLAIMED;
  const metadata = metadataFromNanobot(dict, {
    role: known,
    claimed,
    lossy: {
      content: isLossy(dict['content'], contentToNanobot(content)),
      tool_calls: isLossy(
        dict['tool_calls'],
        toolCalls.length > 0 ? toolCalls.map(toolCallToNanobot) : undefined,
      ),
    },
  });
  // Built property by property rather than with conditional spreads: a session of a million messages
  // keeps a million of these, and spread-built objects carry extra slack.
  const id = typeof dict['id'] === 'string' && dict['id'] !== '' ? dict['id'] : fallbackId;
  const message: Writable<Message> =
    metadata === undefined ? { id, role: known, content } : { id, role: known, content, metadata };
  if (typeof dict['name'] === 'string') message.name = dict['name'];
  if (known === 'tool' && typeof dict['tool_call_id'] === 'string') message.toolCallId = dict['tool_call_id'];
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (typeof dict['reasoning_content'] === 'string') message.reasoning = dict['reasoning_content'];
  return message;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

const NOTHING_CLAIMED: ReadonlySet<string> = new Set();
const CLAIMED: ReadonlySet<string> = new Set([CTXLOOM_FIELDS_KEY]);
const CLAIMED_WITH_THINKING: ReadonlySet<string> = new Set([CTXLOOM_FIELDS_KEY, 'thinking_blocks']);

/** How one dict converts: its role, the keys `_ctxloom_fields` claims, and whether content or calls lose something. */
type Conversion = {
  readonly role: Role;
  readonly claimed: ReadonlySet<string>;
  readonly lossy: Readonly<Record<'content' | 'tool_calls', boolean>>;
};

/** True when a stored field is present and converting it and back would not give it again. */
function isLossy(stored: unknown, convertedBack: unknown): boolean {
  return stored !== undefined && !isDeepStrictEqual(stored, convertedBack);
}

/** `metadata`: `_ctxloom`'s fields, the timestamp, the runtime-context marker, and the rest under `nanobot`. */
function metadataFromNanobot(dict: NanobotDict, conversion: Conversion): Record<string, unknown> | undefined {
  const extra = unmodelledFields(dict, conversion);
  const { timestamp, _ctxloom: own, _runtime_context: marker } = dict;
  // The common case (a timestamp and nothing else) gets a one-property object: a session keeps millions.
  if (!isRecord(own) && !isRecord(marker) && extra === undefined)
    return typeof timestamp === 'string' ? { timestamp } : undefined;
  const metadata: Record<string, unknown> = isRecord(own) ? { ...own } : {};
  if (typeof timestamp === 'string') metadata[TIMESTAMP] = timestamp;
  if (isRecord(marker)) metadata[RUNTIME_CONTEXT_KEY] = marker;
  if (extra !== undefined) metadata[NANOBOT_EXTRA_KEY] = extra;
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** The fields a {@link Message} does not hold as they are, or undefined when there are none. */
function unmodelledFields(dict: NanobotDict, conversion: Conversion): Record<string, unknown> | undefined {
  const extra: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(dict)) {
    if (conversion.claimed.has(key)) continue;
    const modelled = MODELLED[key];
    if (modelled === undefined || !modelled(field, conversion.role)) setField(extra, key, field);
  }
  for (const key of ['content', 'tool_calls'] as const) if (conversion.lossy[key]) extra[key] = dict[key];
  return Object.keys(extra).length > 0 ? extra : undefined;
}

/** Converts a {@link Message} into nanobot's dict shape (the inverse of {@link fromNanobotDict}). */
export function toNanobotDict(message: Message): NanobotDict {
  const {
    timestamp,
    [RUNTIME_CONTEXT_KEY]: runtimeContext,
    [NANOBOT_EXTRA_KEY]: extraValue,
    ...own
  } = message.metadata ?? {};
  const { content: rawContent, tool_calls: rawCalls, ...extra } = isRecord(extraValue) ? extraValue : {};
  const split = splitStoredFields(message, extra['thinking_blocks'] !== undefined);
  const calls = split.toolCalls;
  const keepContent =
    rawContent !== undefined && isDeepStrictEqual(contentFromNanobot(rawContent), split.content);
  return {
    ...extra,
    role: message.role,
    content: keepContent ? rawContent : contentToNanobot(split.content),
    ...(typeof timestamp === 'string' ? { timestamp } : {}),
    ...toolCallsToNanobot(calls, { raw: rawCalls, role: message.role }),
    ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.reasoning === undefined ? {} : { reasoning_content: message.reasoning }),
    ...(split.thinkingBlocks === undefined ? {} : { thinking_blocks: split.thinkingBlocks }),
    ...(runtimeContext === undefined ? {} : { _runtime_context: runtimeContext }),
    id: message.id,
    ...(Object.keys(own).length > 0 ? { _ctxloom: own } : {}),
    ...(split.fields === undefined ? {} : { [CTXLOOM_FIELDS_KEY]: split.fields }),
  };
}

/**
 * A stable id for a stored message that has none: a hash of its position and its line (the line's
 * UTF-8 bytes, or the line as a string, which hashes the same when it is valid UTF-8).
 */
export function derivedMessageId(ordinal: number, line: string | Uint8Array): string {
  // Hashed in parts and hex-encoded from the digest's first 16 bytes: the same id as hashing
  // `${ordinal}\n${line}` and keeping 32 hex digits, without a concatenated copy or a sliced string.
  return createHash('sha256').update(`${ordinal}\n`).update(line).digest().toString('hex', 0, 16);
}

/** `tool_calls` as they were read when they still say the same, else converted; nothing without calls. */
function toolCallsToNanobot(
  calls: readonly ToolCall[],
  stored: { readonly raw: unknown; readonly role: Role },
): { tool_calls?: unknown } {
  if (stored.raw !== undefined && isDeepStrictEqual(toolCallsFromNanobot(stored.raw, stored.role), calls))
    return { tool_calls: stored.raw };
  return calls.length === 0 ? {} : { tool_calls: calls.map(toolCallToNanobot) };
}

/** Converts one {@link ToolCall} to OpenAI's `{ id, type: 'function', function: { name, arguments } }`. */
function toolCallToNanobot(call: ToolCall): NanobotDict {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

function toolCallsFromNanobot(value: unknown, role: Role): ToolCall[] {
  if (role !== 'assistant' || !Array.isArray(value)) return [];
  return value.filter(isRecord).map((call) => {
    const fn = isRecord(call['function']) ? call['function'] : call;
    const args = fn['arguments'];
    return {
      id: typeof call['id'] === 'string' ? call['id'] : '',
      name: typeof fn['name'] === 'string' ? fn['name'] : '',
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    };
  });
}

/** Message content from nanobot's `content`: a string, a list of blocks, or anything else as JSON text. */
function contentFromNanobot(value: unknown): string | readonly ContentPart[] {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (!Array.isArray(value)) return JSON.stringify(value);
  return value.map(
    (block) =>
      blockFromNanobot(block) ?? { type: 'text', text: `[unsupported content block: ${blockType(block)}]` },
  );
}

function blockFromNanobot(block: unknown): ContentPart | undefined {
  if (typeof block === 'string') return { type: 'text', text: block };
  if (!isRecord(block)) return undefined;
  const meta = isRecord(block['_meta']) ? block['_meta'] : {};
  const path = typeof meta['path'] === 'string' ? { path: meta['path'] } : {};
  if (block['type'] === 'text' && typeof block['text'] === 'string')
    return { type: 'text', text: block['text'] };
  if (block['type'] === 'image_url') return imageFromNanobot(block, { ...path, ...mediaTypeOf(meta) });
  if (block['type'] === 'file' && isRecord(block['file'])) return fileFromNanobot(block['file'], path);
  return undefined;
}

function imageFromNanobot(
  block: Record<string, unknown>,
  extra: { path?: string; mediaType?: string },
): ContentPart | undefined {
  const image = block['image_url'];
  const url = typeof image === 'string' ? image : isRecord(image) ? image['url'] : undefined;
  return typeof url === 'string' && url !== '' ? { type: 'image', url, ...extra } : undefined;
}

function fileFromNanobot(file: Record<string, unknown>, extra: { path?: string }): ContentPart | undefined {
  if (typeof file['url'] !== 'string' || typeof file['media_type'] !== 'string') return undefined;
  const filename = typeof file['filename'] === 'string' ? { filename: file['filename'] } : {};
  return { type: 'file', url: file['url'], mediaType: file['media_type'], ...filename, ...extra };
}

function mediaTypeOf(meta: Record<string, unknown>): { mediaType?: string } {
  return typeof meta['media_type'] === 'string' ? { mediaType: meta['media_type'] } : {};
}

/** nanobot's `content`; reasoning and provider parts are not nanobot blocks (they go to `_ctxloom_fields`). */
function contentToNanobot(content: string | readonly ContentPart[]): unknown {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image':
        return {
          type: 'image_url',
          image_url: { url: part.url },
          ...metaOf({ path: part.path, media_type: part.mediaType }),
        };
      case 'file':
        return {
          type: 'file',
          file: {
            url: part.url,
            media_type: part.mediaType,
            ...(part.filename === undefined ? {} : { filename: part.filename }),
          },
          ...metaOf({ path: part.path }),
        };
      case 'reasoning':
      case 'provider':
        return [];
      default:
        return assertNever(part);
    }
  });
}

function metaOf(fields: Readonly<Record<string, string | undefined>>): { _meta?: Record<string, string> } {
  const meta: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) meta[key] = value;
  return Object.keys(meta).length > 0 ? { _meta: meta } : {};
}

function blockType(block: unknown): string {
  return isRecord(block) && typeof block['type'] === 'string' ? block['type'] : typeof block;
}
