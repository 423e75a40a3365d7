import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { ContentPart, ToolCall } from '../core/message.js';
import { nativeEntry, restOf } from './native-fields.js';

/** The native format name of the Anthropic Messages API (`native.anthropic`, `ProviderPart.format`). */
export const ANTHROPIC = 'anthropic';

type Block = Readonly<Record<string, unknown>>;

/** The image types the Messages API accepts as base64. */
export const ANTHROPIC_IMAGE_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
];

/**
 * A content block as a ctxloom part, exactly: what ctxloom models goes into the part's fields and
 * every other field into `native.anthropic` (a source's extra fields under `source`); a block ctxloom
 * does not model, or one whose values it could not give back exactly, becomes a provider part that
 * holds the block whole.
 */
export function readAnthropicBlock(block: Block): ContentPart {
  const part = modelledPart(block);
  return part ?? { type: 'provider', format: ANTHROPIC, kind: String(block['type']), value: asJson(block) };
}

/** A `tool_use` block as a tool call (`input` as its JSON text, other fields native). */
export function readAnthropicToolUse(block: Block): ToolCall | undefined {
  const { id, name, input } = block;
  if (typeof id !== 'string' || typeof name !== 'string' || !isRecord(input)) return undefined;
  return {
    id,
    name,
    arguments: JSON.stringify(input),
    ...nativeEntry(ANTHROPIC, restOf(block, ['type', 'id', 'name', 'input'])),
  };
}

function modelledPart(block: Block): ContentPart | undefined {
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string'
        ? { type: 'text', text: block['text'], ...nativeEntry(ANTHROPIC, restOf(block, ['type', 'text'])) }
        : undefined;
    case 'thinking': {
      const { thinking, signature } = block;
      if (typeof thinking !== 'string' || typeof signature !== 'string') return undefined;
      const rest = restOf(block, ['type', 'thinking', 'signature']);
      return {
        type: 'reasoning',
        text: thinking,
        signature,
        provider: ANTHROPIC,
        ...nativeEntry(ANTHROPIC, rest),
      };
    }
    case 'redacted_thinking': {
      const data = block['data'];
      if (typeof data !== 'string') return undefined;
      const rest = restOf(block, ['type', 'data']);
      return {
        type: 'reasoning',
        text: '',
        redactedData: data,
        provider: ANTHROPIC,
        ...nativeEntry(ANTHROPIC, rest),
      };
    }
    case 'image':
      return imagePart(block);
    case 'document':
      return documentPart(block);
    default:
      return undefined;
  }
}

function imagePart(block: Block): ContentPart | undefined {
  const source = block['source'];
  if (!isRecord(source)) return undefined;
  const read = readSource(source);
  if (read === undefined) return undefined;
  if (source['type'] === 'base64' && !ANTHROPIC_IMAGE_TYPES.includes(read.mediaType ?? '')) return undefined;
  if (source['type'] === 'text') return undefined;
  const native = withSource(restOf(block, ['type', 'source']), read.rest);
  const mediaType = read.mediaType === undefined ? {} : { mediaType: read.mediaType };
  return { type: 'image', url: read.url, ...mediaType, ...nativeEntry(ANTHROPIC, native) };
}

function documentPart(block: Block): ContentPart | undefined {
  const source = block['source'];
  if (!isRecord(source)) return undefined;
  const read = readSource(source);
  if (read === undefined) return undefined;
  const isPdf = source['type'] !== 'text' && (read.mediaType ?? 'application/pdf') === 'application/pdf';
  const isText = source['type'] === 'text' && read.mediaType === 'text/plain';
  if (!isPdf && !isText) return undefined;
  const title = block['title'];
  const owned = typeof title === 'string' ? ['type', 'source', 'title'] : ['type', 'source'];
  const native = withSource(restOf(block, owned), read.rest);
  return {
    type: 'file',
    url: read.url,
    mediaType: isText ? 'text/plain' : 'application/pdf',
    ...(typeof title === 'string' ? { filename: title } : {}),
    ...nativeEntry(ANTHROPIC, native),
  };
}

function withSource(rest: JsonObject, sourceRest: JsonObject): JsonObject {
  return Object.keys(sourceRest).length === 0 ? rest : { ...rest, source: sourceRest };
}

/** A `base64`, `text` or `url` source as a URL (`data:` for the first two), with its other fields. */
function readSource(
  source: Block,
): { readonly url: string; readonly mediaType?: string; readonly rest: JsonObject } | undefined {
  if (source['type'] === 'url') {
    const url = source['url'];
    return typeof url === 'string' ? { url, rest: restOf(source, ['type', 'url']) } : undefined;
  }
  const { data, media_type: mediaType } = source;
  if (typeof data !== 'string' || typeof mediaType !== 'string') return undefined;
  const rest = restOf(source, ['type', 'media_type', 'data']);
  if (source['type'] === 'base64') return { url: `data:${mediaType};base64,${data}`, mediaType, rest };
  if (source['type'] !== 'text' || Buffer.from(data).toString() !== data) return undefined;
  return { url: `data:${mediaType};base64,${Buffer.from(data).toString('base64')}`, mediaType, rest };
}

function asJson(block: Block): JsonObject {
  // A block of a parsed JSON request is a JSON object.
  return block as JsonObject;
}
