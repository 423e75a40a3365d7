import { parseDataUrl } from '../adapters/adapter-warning.js';
import type { ContentPart, ToolCall } from '../core/message.js';
import type { AiSdkDialect, AiSdkPartLike } from './ai-sdk-message-like.js';
import { AI_SDK_PROVIDER_KEY } from './read-ai-sdk-messages.js';

/**
 * Writes a ctxloom content part as a new AI SDK part of the dialect: text as `text`; an image as an
 * `image` part (`ModelMessage`) or a `file` part with its media type (provider prompts); a file as a
 * `file` part. `data:` URLs become base64 data, other URLs `URL` objects (AI SDK 7 prompts: the
 * tagged `{ type: 'data' | 'url' }` form).
 */
export function writeContentPart(part: ContentPart, dialect: AiSdkDialect): AiSdkPartLike {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'reasoning') return { type: 'reasoning', text: part.text };
  if (part.type === 'provider') return { type: 'text', text: '' };
  const parsed = parseDataUrl(part.url);
  const mediaType = part.mediaType ?? parsed?.mediaType;
  if (dialect === 'model-message' && part.type === 'image') {
    return {
      type: 'image',
      image: parsed === undefined ? new URL(part.url) : parsed.data,
      ...(mediaType === undefined ? {} : { mediaType }),
    };
  }
  const data = fileData(parsed === undefined ? new URL(part.url) : parsed.data, dialect);
  return {
    type: 'file',
    data,
    mediaType: mediaType ?? (part.type === 'image' ? 'image/*' : 'application/octet-stream'),
    ...(part.type === 'file' && part.filename !== undefined ? { filename: part.filename } : {}),
  };
}

/** File data as the dialect takes it: base64 or a `URL`, tagged `{ type: 'data' | 'url' }` in AI SDK 7 prompts. */
function fileData(raw: string | URL, dialect: AiSdkDialect): unknown {
  if (dialect !== 'prompt-v4') return raw;
  return raw instanceof URL ? { type: 'url', url: raw } : { type: 'data', data: raw };
}

/**
 * Writes a ctxloom content part as an item of a `content` tool output: `text`, or the media as
 * `image-data`/`file-data` (`data:` URLs) and `image-url`/`file-url` (AI SDK 7 prompts: `file` with
 * tagged data).
 */
export function writeToolOutputItem(part: ContentPart, dialect: AiSdkDialect): AiSdkPartLike {
  if (part.type === 'text' || part.type === 'reasoning') return { type: 'text', text: part.text };
  if (part.type === 'provider') return { type: 'text', text: '' };
  if (dialect === 'prompt-v4')
    return writeContentPart({ ...part, type: 'file', mediaType: part.mediaType ?? 'image/*' }, dialect);
  const parsed = parseDataUrl(part.url);
  const mediaType = part.mediaType ?? parsed?.mediaType;
  if (parsed !== undefined) {
    return part.type === 'image'
      ? { type: 'image-data', data: parsed.data, mediaType: mediaType ?? parsed.mediaType }
      : {
          type: 'file-data',
          data: parsed.data,
          mediaType: part.mediaType,
          ...(part.filename === undefined ? {} : { filename: part.filename }),
        };
  }
  return part.type === 'image'
    ? { type: 'image-url', url: part.url }
    : { type: 'file-url', url: part.url, mediaType: part.mediaType };
}

/**
 * Writes a tool call as a new `tool-call` part, with the arguments parsed to `input`. Arguments that
 * are not JSON (or not exactly as JSON would write them) are carried in `providerOptions.ctxloom` when
 * `carry` is set, so `fromAiSdkMessages` restores them byte for byte.
 */
export function writeToolCallPart(call: ToolCall, options: { readonly carry: boolean }): AiSdkPartLike {
  let input: unknown = {};
  let exact = false;
  try {
    input = JSON.parse(call.arguments);
    // Only an object reads back the same way (a string input is read as raw arguments).
    exact = typeof input === 'object' && input !== null && JSON.stringify(input) === call.arguments;
  } catch {
    input = {};
  }
  return {
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.name,
    input,
    ...(exact || !options.carry
      ? {}
      : { providerOptions: { [AI_SDK_PROVIDER_KEY]: { arguments: call.arguments } } }),
  };
}
