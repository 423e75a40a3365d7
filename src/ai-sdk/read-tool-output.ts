import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { ContentPart, Message, ToolOutputType } from '../core/message.js';
import { aiSdkJson, aiSdkJsonObject, extraFields } from './ai-sdk-json.js';
import { type AiSdkPartLike, fieldOf, stringOf } from './ai-sdk-message-like.js';
import { type AiSdkNative, nativeEntry, providerOptionsEntry } from './ai-sdk-native.js';
import { readAiSdkData } from './read-ai-sdk-media.js';
import { aiSdkProviderPart } from './read-ai-sdk-part.js';
import { readCarries } from './read-ai-sdk-part-carries.js';

/** Where a reader records the AI SDK part each ctxloom part was read from. */
export type PartRecorder = { readonly set: (read: object, source: AiSdkPartLike) => void };

/** What a tool result's `output` becomes: the ctxloom content, its output type and what else it had. */
export type ReadToolOutput = {
  readonly content: Message['content'];
  /** `undefined` for `text`. */
  readonly output: ToolOutputType | undefined;
  /** What the writer needs to give the output back exactly. */
  readonly native: AiSdkNative;
};

const OUTPUT_KNOWN = new Set(['type', 'value', 'reason']);

/**
 * Reads the `output` of an AI SDK `tool-result` part: `text` and `error-text` as their text, `json`
 * and `error-json` as JSON text, `execution-denied` as its reason, `content` as parts (media as image
 * and file parts, items ctxloom does not model as `ai-sdk` provider parts). The output type is
 * `output`; its other fields (`providerOptions`, …) are kept in `native`.
 */
export function readToolOutput(
  output: unknown,
  run: { readonly index: number; readonly warnings: AdapterWarning[]; readonly parts: PartRecorder },
): ReadToolOutput {
  if (typeof output !== 'object' || output === null) return { content: '', output: undefined, native: {} };
  const type = fieldOf(output, 'type');
  const value = fieldOf(output, 'value');
  const fields = extraFields(output, OUTPUT_KNOWN);
  const native: AiSdkNative = fields === undefined ? {} : { outputFields: fields };
  switch (type) {
    case 'text':
    case 'error-text':
      if (typeof value !== 'string') break;
      return { content: value, output: type === 'text' ? undefined : type, native };
    case 'json':
    case 'error-json':
      return { content: JSON.stringify(aiSdkJson(value ?? null)), output: type, native };
    case 'execution-denied': {
      const reason = fieldOf(output, 'reason');
      if (reason !== undefined && typeof reason !== 'string') break;
      return {
        content: reason ?? '',
        output: type,
        native: reason === undefined ? { ...native, deniedWithoutReason: true } : native,
      };
    }
    case 'content':
      if (!Array.isArray(value)) break;
      // Parts content says `content` already (absent `output` with parts is written as `content`).
      return { content: contentItems(value, run), output: undefined, native };
    default:
      break;
  }
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `tool output of type ${JSON.stringify(type)} read as empty text (kept as it is)`,
  });
  return { content: '', output: undefined, native: { rawOutput: aiSdkJsonObject(output) } };
}

function contentItems(items: readonly unknown[], run: { readonly parts: PartRecorder }): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const part = contentItem(item);
    // Items are parts of the AI SDK's union: each has a string `type`.
    run.parts.set(part, item as AiSdkPartLike);
    parts.push(part);
  }
  return parts;
}

const TEXT_KNOWN = new Set(['type', 'text', 'providerOptions']);
const DATA_KNOWN = new Set(['type', 'data', 'mediaType', 'filename', 'providerOptions']);
const URL_KNOWN = new Set(['type', 'url', 'mediaType', 'providerOptions']);
/** Items whose data is base64 (`file`: AI SDK 7 tagged file data). */
const DATA_ITEMS = new Set(['media', 'image-data', 'file-data', 'file']);

function contentItem(item: object): ContentPart {
  const type = stringOf(item, 'type') ?? '';
  if (type === 'text') {
    const text = stringOf(item, 'text');
    if (text === undefined) return aiSdkProviderPart(item);
    const { providerOptions, fields } = readCarries(item, TEXT_KNOWN);
    return { type: 'text', text, ...providerOptionsEntry(providerOptions), ...nativeEntry({ fields }) };
  }
  const isData = DATA_ITEMS.has(type);
  if (!(isData || type === 'image-url' || type === 'file-url')) return aiSdkProviderPart(item);
  const mediaType = stringOf(item, 'mediaType');
  const isImage = type === 'image-data' || type === 'image-url' || mediaType?.startsWith('image/') === true;
  const fallbackType = isImage ? 'image/png' : 'application/octet-stream';
  const raw = fieldOf(item, isData ? 'data' : 'url');
  const data =
    type === 'file'
      ? readAiSdkData(raw, mediaType ?? fallbackType)
      : typeof raw === 'string'
        ? readAiSdkData(raw, mediaType ?? fallbackType)
        : undefined;
  // A `file` item holds tagged data; the others a base64 string or a URL string, as they are.
  if (
    data === undefined ||
    (type !== 'file' && data.form !== undefined && !(data.form === 'url-string' && !isData))
  )
    return aiSdkProviderPart(item);
  const filename = stringOf(item, 'filename');
  const { providerOptions, fields } = readCarries(
    item,
    isImage ? withoutFilename(isData ? DATA_KNOWN : URL_KNOWN) : isData ? DATA_KNOWN : URL_KNOWN,
  );
  const defaultType = isImage ? (isData ? 'image-data' : 'image-url') : isData ? 'file-data' : 'file-url';
  const native: AiSdkNative = {
    ...(fields === undefined ? {} : { fields }),
    ...(type === defaultType ? {} : { itemType: type }),
    ...(type === 'file' ? { dataForm: 'tagged' } : {}),
    ...(mediaType === undefined && type !== 'image-url' ? { noMediaType: true } : {}),
  };
  const carries = { ...providerOptionsEntry(providerOptions), ...nativeEntry(native) };
  if (isImage)
    return { type: 'image', url: data.url, ...(mediaType === undefined ? {} : { mediaType }), ...carries };
  return {
    type: 'file',
    url: data.url,
    mediaType: mediaType ?? fallbackType,
    ...(filename === undefined ? {} : { filename }),
    ...carries,
  };
}

function withoutFilename(known: ReadonlySet<string>): ReadonlySet<string> {
  const out = new Set(known);
  out.delete('filename');
  return out;
}
