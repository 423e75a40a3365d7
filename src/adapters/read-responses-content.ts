import { isRecord } from '../core/is-record.js';
import type { JsonObject } from '../core/json.js';
import type { ContentPart, ReasoningPart } from '../core/message.js';
import { parseDataUrl } from './adapter-warning.js';
import { nativeEntry, restOf } from './native-fields.js';

/** The native format name of the OpenAI Responses API (`native['openai-responses']`, `ProviderPart.format`). */
export const OPENAI_RESPONSES = 'openai-responses';

type Item = Readonly<Record<string, unknown>>;

/** The text content type a writer uses by default where the content sits. */
export type TextType = 'input_text' | 'output_text';

/** An input or output content item as a part, exactly (fields ctxloom does not model native); unmodelled ones whole. */
export function readResponsesContent(item: Item, defaultText: TextType): ContentPart {
  return modelled(item, defaultText) ?? providerPart(item);
}

/** An item kept whole, as a provider part. */
export function providerPart(item: Item): ContentPart {
  // An item of a parsed JSON request is a JSON object.
  return {
    type: 'provider',
    format: OPENAI_RESPONSES,
    kind: String(item['type']),
    value: item as JsonObject,
  };
}

/** True for an `input_text` / `output_text` item with string text. */
export function isTextItem(item: unknown): boolean {
  return (
    isRecord(item) &&
    (item['type'] === 'input_text' || item['type'] === 'output_text') &&
    typeof item['text'] === 'string'
  );
}

function modelled(item: Item, defaultText: TextType): ContentPart | undefined {
  const type = item['type'];
  if (isTextItem(item)) {
    const owned = type === defaultText ? ['type', 'text'] : ['text'];
    return {
      type: 'text',
      text: String(item['text']),
      ...nativeEntry(OPENAI_RESPONSES, restOf(item, owned)),
    };
  }
  if (type === 'input_image' && typeof item['image_url'] === 'string') {
    const url = item['image_url'];
    const mediaType = parseDataUrl(url)?.mediaType;
    return {
      type: 'image',
      url,
      ...(mediaType === undefined ? {} : { mediaType }),
      ...nativeEntry(OPENAI_RESPONSES, restOf(item, ['type', 'image_url'])),
    };
  }
  if (type === 'input_file') return filePart(item);
  return undefined;
}

function filePart(item: Item): ContentPart | undefined {
  const { file_data: data, file_url: url } = item;
  const isData = typeof data === 'string' && parseDataUrl(data) !== undefined;
  const isUrl = data === undefined && typeof url === 'string' && parseDataUrl(url) === undefined;
  if (!isData && !isUrl) return undefined;
  const location = String(isData ? data : url);
  const filename = typeof item['filename'] === 'string' ? { filename: item['filename'] } : {};
  const owned = [
    'type',
    isData ? 'file_data' : 'file_url',
    ...(filename.filename === undefined ? [] : ['filename']),
  ];
  const mediaType =
    parseDataUrl(location)?.mediaType ??
    (location.toLowerCase().endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream');
  return {
    type: 'file',
    url: location,
    mediaType,
    ...filename,
    ...nativeEntry(OPENAI_RESPONSES, restOf(item, owned)),
  };
}

/**
 * A `reasoning` item as a reasoning part: the summary texts (one per line) as text, `encrypted_content`
 * as `encryptedContent`, the rest native (the summary itself only when the text cannot rebuild it).
 * `undefined` for an item whose summary is not a list.
 */
export function readReasoningItem(item: Item): ReasoningPart | undefined {
  const summary = item['summary'];
  if (!Array.isArray(summary)) return undefined;
  const texts = summary.map((entry: unknown) =>
    isRecord(entry) && typeof entry['text'] === 'string' ? entry['text'] : '',
  );
  const text = texts.join('\n');
  const encrypted = item['encrypted_content'];
  const owned = [
    'type',
    ...(isRebuildable(summary, text) ? ['summary'] : []),
    ...(typeof encrypted === 'string' ? ['encrypted_content'] : []),
  ];
  return {
    type: 'reasoning',
    text,
    provider: 'openai',
    ...(typeof encrypted === 'string' ? { encryptedContent: encrypted } : {}),
    ...nativeEntry(OPENAI_RESPONSES, restOf(item, owned)),
  };
}

/** The summary a reasoning text makes: none for `''`, else one `summary_text`. */
export function summaryOf(text: string): JsonObject[] {
  return text === '' ? [] : [{ type: 'summary_text', text }];
}

function isRebuildable(summary: readonly unknown[], text: string): boolean {
  return JSON.stringify(summary) === JSON.stringify(summaryOf(text));
}
