import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { assertNever } from '../core/assert-never.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message, Role, ToolCall } from '../core/message.js';
import { RUNTIME_CONTEXT_KEY } from '../core/runtime-context-marker.js';

/** A message as nanobot stores it: an OpenAI-chat-shaped JSON object. */
export type NanobotDict = { readonly [key: string]: unknown };

/** Metadata keys the converter owns. */
export const NANOBOT_EXTRA_KEY = 'nanobot';
/** The runtime-context marker (`{ version: 1, sources, suffix | blocks }`), nanobot's `_runtime_context`. */
export { RUNTIME_CONTEXT_KEY } from '../core/runtime-context-marker.js';

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];
const OWN_FIELDS = new Set([
  'id',
  'role',
  'content',
  'timestamp',
  'tool_calls',
  'tool_call_id',
  'name',
  'reasoning_content',
  '_runtime_context',
  '_ctxloom',
]);

/**
 * Converts a nanobot message dict into a {@link Message}, or returns why it cannot (not an object,
 * unknown role). Field mapping: `tool_calls` `{id, type:'function', function:{name, arguments}}` →
 * `toolCalls` `{id, name, arguments}` (object arguments become JSON text); `tool_call_id` →
 * `toolCallId`; `reasoning_content` → `reasoning`; `timestamp` → `metadata.timestamp`;
 * `_runtime_context` → `metadata.runtimeContext`; `image_url` blocks → image parts (with `_meta.path`);
 * every other field (`media`, `_command`, `thinking_blocks`, `latency_ms`, …) is kept in
 * `metadata.nanobot` so writing the message back loses nothing. `fallbackId` names messages stored
 * without an `id`.
 */
export function fromNanobotDict(value: unknown, fallbackId: string): Message | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  // A non-null, non-array value parsed from JSON is a plain record.
  const dict = value as NanobotDict;
  const role = dict['role'];
  if (typeof role !== 'string' || !ROLES.includes(role as Role))
    return `unknown role ${JSON.stringify(role)}`;
  const content = contentFromNanobot(dict['content']);
  const metadata = metadataFromNanobot(dict, content.raw);
  const toolCalls = role === 'assistant' ? toolCallsFromNanobot(dict['tool_calls']) : [];
  return {
    id: typeof dict['id'] === 'string' && dict['id'] !== '' ? dict['id'] : fallbackId,
    // Checked against ROLES above.
    role: role as Role,
    content: content.value,
    ...(typeof dict['name'] === 'string' ? { name: dict['name'] } : {}),
    ...(role === 'tool' && typeof dict['tool_call_id'] === 'string'
      ? { toolCallId: dict['tool_call_id'] }
      : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(typeof dict['reasoning_content'] === 'string' ? { reasoning: dict['reasoning_content'] } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

function metadataFromNanobot(dict: NanobotDict, rawContent: unknown): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(dict)) if (!OWN_FIELDS.has(key)) extra[key] = field;
  if (rawContent !== undefined) extra['content'] = rawContent;
  const own = isRecord(dict['_ctxloom']) ? dict['_ctxloom'] : {};
  return {
    ...own,
    ...(typeof dict['timestamp'] === 'string' ? { timestamp: dict['timestamp'] } : {}),
    ...(isRecord(dict['_runtime_context']) ? { [RUNTIME_CONTEXT_KEY]: dict['_runtime_context'] } : {}),
    ...(Object.keys(extra).length > 0 ? { [NANOBOT_EXTRA_KEY]: extra } : {}),
  };
}

/** Converts a {@link Message} into nanobot's dict shape (the inverse of {@link fromNanobotDict}). */
export function toNanobotDict(message: Message): NanobotDict {
  const {
    timestamp,
    [RUNTIME_CONTEXT_KEY]: runtimeContext,
    [NANOBOT_EXTRA_KEY]: extraValue,
    ...own
  } = message.metadata ?? {};
  const extra: Record<string, unknown> = isRecord(extraValue) ? { ...extraValue } : {};
  const rawContent = extra['content'];
  delete extra['content'];
  const keepRaw =
    rawContent !== undefined && isDeepStrictEqual(contentFromNanobot(rawContent).value, message.content);
  return {
    ...extra,
    role: message.role,
    content: keepRaw ? rawContent : contentToNanobot(message.content),
    ...(typeof timestamp === 'string' ? { timestamp } : {}),
    ...(message.toolCalls === undefined || message.toolCalls.length === 0
      ? {}
      : { tool_calls: message.toolCalls.map(toolCallToNanobot) }),
    ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.reasoning === undefined ? {} : { reasoning_content: message.reasoning }),
    ...(runtimeContext === undefined ? {} : { _runtime_context: runtimeContext }),
    id: message.id,
    ...(Object.keys(own).length > 0 ? { _ctxloom: own } : {}),
  };
}

/** A stable id for a stored message that has none: a hash of its position and its line. */
export function derivedMessageId(ordinal: number, line: string): string {
  return createHash('sha256').update(`${ordinal}\n${line}`).digest('hex').slice(0, 32);
}

/** Converts one {@link ToolCall} to OpenAI's `{ id, type: 'function', function: { name, arguments } }`. */
function toolCallToNanobot(call: ToolCall): NanobotDict {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

function toolCallsFromNanobot(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
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

type ConvertedContent = { readonly value: string | readonly ContentPart[]; readonly raw?: unknown };

function contentFromNanobot(value: unknown): ConvertedContent {
  if (typeof value === 'string') return { value };
  if (value === null || value === undefined) return { value: '' };
  if (!Array.isArray(value)) return { value: JSON.stringify(value), raw: value };
  const parts: ContentPart[] = [];
  let lossy = false;
  for (const block of value) {
    const part = blockFromNanobot(block);
    if (part === undefined) {
      lossy = true;
      parts.push({ type: 'text', text: `[unsupported content block: ${blockType(block)}]` });
    } else parts.push(part);
  }
  return lossy ? { value: parts, raw: value } : { value: parts };
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

function contentToNanobot(content: string | readonly ContentPart[]): unknown {
  if (typeof content === 'string') return content;
  return content.map((part) => {
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
