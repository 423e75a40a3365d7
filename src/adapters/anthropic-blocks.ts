import type { ContentPart, Message } from '../core/message.js';
import type { AdapterWarning } from './adapter-warning.js';
import { parseDataUrl } from './adapter-warning.js';
import type {
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
} from './anthropic-types.js';
import { isToolError } from './tool-error.js';

/** Where a block is written: for warnings. */
export type BlockRun = { readonly index: number; readonly warnings: AdapterWarning[] };

const IMAGE_TYPES: readonly AnthropicImageMediaType[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
];

/** Rewrites tool call ids outside `[A-Za-z0-9_-]` (the Messages API rule) consistently within a request. */
export class CallIdMap {
  readonly #map = new Map<string, string>();
  readonly #used = new Set<string>();

  /** The id to send for `id` (the same one every time). */
  get(id: string, run: BlockRun): string {
    const known = this.#map.get(id);
    if (known !== undefined) return known;
    let safe = id.replace(/[^A-Za-z0-9_-]/g, '_');
    if (safe === '') safe = 'call';
    let candidate = safe;
    for (let suffix = 2; this.#used.has(candidate); suffix += 1) candidate = `${safe}_${suffix}`;
    if (candidate !== id) {
      run.warnings.push({
        type: 'converted',
        index: run.index,
        message: `tool call id ${JSON.stringify(id)} sent as ${candidate}`,
      });
    }
    this.#map.set(id, candidate);
    this.#used.add(candidate);
    return candidate;
  }
}

/**
 * A content part as a new block: text (whitespace-only text is left out: the API rejects blank
 * text), an image (`base64` for the four accepted types, `url` otherwise), a PDF or plain-text
 * `document`. Anything else is left out with a warning.
 */
export function partBlock(
  part: ContentPart,
  run: BlockRun,
): AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | undefined {
  if (part.type === 'text') {
    if (part.text.trim() !== '') return { type: 'text', text: part.text };
    if (part.text !== '')
      run.warnings.push({
        type: 'dropped-field',
        index: run.index,
        message: 'whitespace-only text left out',
      });
    return undefined;
  }
  if (part.type === 'reasoning' || part.type === 'provider') return undefined;
  if (part.type === 'image') return imageBlock(part.url, run);
  const data = parseDataUrl(part.url);
  const title = part.filename === undefined ? {} : { title: part.filename };
  if (part.mediaType === 'application/pdf') {
    return {
      type: 'document',
      source:
        data === undefined
          ? { type: 'url', url: part.url }
          : { type: 'base64', media_type: 'application/pdf', data: data.data },
      ...title,
    };
  }
  if (part.mediaType === 'text/plain' && data !== undefined) {
    const text = Buffer.from(data.data, 'base64').toString('utf8');
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `file of type ${part.mediaType} left out`,
  });
  return undefined;
}

function imageBlock(url: string, run: BlockRun): AnthropicImageBlock | undefined {
  const data = parseDataUrl(url);
  if (data === undefined) return { type: 'image', source: { type: 'url', url } };
  const mediaType = IMAGE_TYPES.find((known) => known === data.mediaType);
  if (mediaType === undefined) {
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message: `image of type ${data.mediaType} left out`,
    });
    return undefined;
  }
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data.data } };
}

/** The blocks of a content (`parts` maps a part read from Anthropic back to its block). */
export function contentBlocks(
  content: Message['content'],
  run: BlockRun & { readonly parts: ReadonlyMap<object, object> | undefined },
): AnthropicContentBlock[] {
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  return parts.flatMap((part): AnthropicContentBlock[] => {
    // A part read by fromAnthropicMessages maps to the block it came from.
    const known = run.parts?.get(part) as AnthropicContentBlock | undefined;
    if (known !== undefined) return [known];
    const block = partBlock(part, run);
    return block === undefined ? [] : [block];
  });
}

/** The content of a `tool_result` (text, images and documents). */
export function toolResultContent(
  message: Message,
  run: BlockRun & { readonly parts: ReadonlyMap<object, object> | undefined },
): NonNullable<AnthropicToolResultBlock['content']> {
  if (typeof message.content === 'string') return message.content;
  const blocks = contentBlocks(message.content, run);
  return blocks.flatMap((block) =>
    block.type === 'text' || block.type === 'image' || block.type === 'document' ? [block] : [],
  );
}

/** A new `tool_result` block (`is_error` for `metadata.isError`). */
export function toolResultBlock(
  message: Message,
  run: BlockRun & { readonly id: string; readonly parts: ReadonlyMap<object, object> | undefined },
): AnthropicToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: run.id,
    content: toolResultContent(message, run),
    ...(isToolError(message) ? { is_error: true } : {}),
  };
}

/** Tool arguments as the object `tool_use.input` must be (`{ value }` / `{ raw }` when they are not one). */
export function toolInput(raw: string, run: BlockRun): Readonly<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Readonly<Record<string, unknown>>; // checked: a plain object
    }
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: 'tool arguments are not a JSON object; sent as { value }',
    });
    return { value };
  } catch {
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: 'tool arguments are not valid JSON; sent as { raw }',
    });
    return { raw };
  }
}
