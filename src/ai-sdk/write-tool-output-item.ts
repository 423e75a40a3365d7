import { parseDataUrl } from '../adapters/adapter-warning.js';
import type { ContentPart } from '../core/message.js';
import type { AiSdkPartLike } from './ai-sdk-message-like.js';
import { aiSdkNativeOf, providerOptionsEntry } from './ai-sdk-native.js';
import { mediaData, providerValue, type WritePartRun, writeMediaPart } from './write-ai-sdk-parts.js';

const DATA_TYPES = new Set(['image-data', 'file-data', 'media']);
const URL_TYPES = new Set(['image-url', 'file-url']);

/**
 * Writes a ctxloom content part as an item of a `content` tool output: `text`; media as
 * `image-data`/`file-data` (`data:` URLs) and `image-url`/`file-url`, or as the item type it was read
 * as (AI SDK 7 prompts: `file` with tagged data); an `ai-sdk` provider part as its value.
 */
export function writeToolOutputItem(part: ContentPart, run: WritePartRun): AiSdkPartLike | undefined {
  if (part.type === 'provider') return providerValue(part, run);
  if (part.type === 'text' || part.type === 'reasoning') {
    return {
      ...aiSdkNativeOf(part).fields,
      type: 'text',
      text: part.text,
      ...providerOptionsEntry(part.type === 'text' ? part.providerOptions : undefined),
    };
  }
  if (run.dialect === 'prompt-v4')
    return writeMediaPart({ ...part, type: 'file', mediaType: part.mediaType ?? 'image/*' }, run.dialect);
  const native = aiSdkNativeOf(part);
  const parsed = parseDataUrl(part.url);
  const isImage = part.type === 'image';
  const fallback =
    parsed === undefined ? (isImage ? 'image-url' : 'file-url') : isImage ? 'image-data' : 'file-data';
  const wanted = native.itemType;
  const fits = fitsItemType(wanted, { parsed: parsed !== undefined, dialect: run.dialect });
  const type = fits ? wanted : fallback;
  const mediaType = part.mediaType ?? parsed?.mediaType;
  const hasMediaType = native.noMediaType !== true;
  const carries = { ...native.fields, ...providerOptionsEntry(part.providerOptions) };
  const filename = part.type === 'file' && part.filename !== undefined ? { filename: part.filename } : {};
  if (type === 'image-url') return { ...carries, type, url: part.url };
  if (type === 'file-url')
    return {
      ...carries,
      type,
      url: part.url,
      ...(mediaType === undefined || !hasMediaType ? {} : { mediaType }),
    };
  const data =
    type === 'file' ? mediaData(part.url, { form: 'tagged', dialect: run.dialect }) : (parsed?.data ?? '');
  return {
    ...carries,
    type,
    data,
    ...(hasMediaType ? { mediaType: mediaType ?? 'application/octet-stream' } : {}),
    ...(type === 'image-data' ? {} : filename),
  };
}

/** Whether an item type read before still fits the part's data (`file`: AI SDK 7 `ModelMessage` only). */
function fitsItemType(
  wanted: string | undefined,
  data: { readonly parsed: boolean; readonly dialect: WritePartRun['dialect'] },
): wanted is string {
  if (wanted === undefined) return false;
  if (wanted === 'file') return data.dialect === 'model-message';
  return data.parsed ? DATA_TYPES.has(wanted) : URL_TYPES.has(wanted);
}
