import type { ContentPart } from '../core/message.js';
import { fieldOf, stringOf } from './ai-sdk-message-like.js';
import type { AiSdkDataForm, AiSdkNative } from './ai-sdk-native.js';
import { nativeEntry, providerOptionsEntry } from './ai-sdk-native.js';
import { readCarries } from './read-ai-sdk-part-carries.js';

/** Media data as a ctxloom URL and the form it was given in (when not the writer's default). */
type ReadData = { readonly url: string; readonly form?: AiSdkDataForm };

/**
 * The data of an AI SDK image or file as a URL string: URLs as their `href`, `data:` URLs and other
 * URL strings as they are, base64 strings and bytes as `data:` URLs, AI SDK 7 tagged data
 * (`{ type: 'data' | 'url' }`) unwrapped. `undefined` for what has no URL form (a provider reference,
 * file text).
 */
export function readAiSdkData(data: unknown, mediaType: string): ReadData | undefined {
  if (data instanceof URL) return { url: data.href };
  if (typeof data === 'string') {
    if (/^data:/i.test(data)) return { url: data, form: 'data-url' };
    if (/^https?:/i.test(data)) return { url: data, form: 'url-string' };
    return { url: `data:${mediaType};base64,${data}` };
  }
  if (data instanceof Uint8Array)
    return { url: `data:${mediaType};base64,${Buffer.from(data).toString('base64')}` };
  if (data instanceof ArrayBuffer) return readAiSdkData(new Uint8Array(data), mediaType);
  if (typeof data !== 'object' || data === null) return undefined;
  const tag = fieldOf(data, 'type');
  const inner = tag === 'data' ? fieldOf(data, 'data') : tag === 'url' ? fieldOf(data, 'url') : undefined;
  if (
    inner === undefined ||
    (typeof inner === 'object' && !(inner instanceof URL) && !(inner instanceof Uint8Array))
  )
    return undefined;
  const read = readAiSdkData(inner, mediaType);
  return read === undefined || read.form !== undefined ? undefined : { url: read.url, form: 'tagged' };
}

const IMAGE_KNOWN = new Set(['type', 'image', 'mediaType', 'providerOptions']);
const FILE_KNOWN = new Set(['type', 'data', 'mediaType', 'filename', 'providerOptions']);
const IMAGE_FILE_KNOWN = new Set(['type', 'data', 'mediaType', 'providerOptions']);

/**
 * Reads an AI SDK `image` or `file` part of a message as a ctxloom image or file part (a file of an
 * `image/*` type as an image, marked so it is written back as a file); `undefined` when its data has no
 * URL form.
 */
export function readAiSdkMedia(part: object, dataKey: 'image' | 'data'): ContentPart | undefined {
  const mediaType = stringOf(part, 'mediaType');
  const isImage = dataKey === 'image' || mediaType?.startsWith('image/') === true;
  const data = readAiSdkData(
    fieldOf(part, dataKey),
    mediaType ?? (isImage ? 'image/png' : 'application/octet-stream'),
  );
  if (data === undefined) return undefined;
  const filename = stringOf(part, 'filename');
  // A file read as an image keeps its filename among the native fields.
  const known = dataKey === 'image' ? IMAGE_KNOWN : isImage ? IMAGE_FILE_KNOWN : FILE_KNOWN;
  const { providerOptions, fields } = readCarries(part, known);
  const native: AiSdkNative = {
    ...(fields === undefined ? {} : { fields }),
    ...(data.form === undefined ? {} : { dataForm: data.form }),
    ...(mediaType === undefined && data.url.startsWith('data:') ? { noMediaType: true } : {}),
    ...(dataKey === 'data' && isImage ? { itemType: 'file' } : {}),
  };
  const carries = { ...providerOptionsEntry(providerOptions), ...nativeEntry(native) };
  if (isImage)
    return { type: 'image', url: data.url, ...(mediaType === undefined ? {} : { mediaType }), ...carries };
  return {
    type: 'file',
    url: data.url,
    mediaType: mediaType ?? 'application/octet-stream',
    ...(filename === undefined ? {} : { filename }),
    ...carries,
  };
}
