import type { ContentPart, Message, ProviderPart, ReasoningPart } from '../core/message.js';
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
import { layoutOf, nativeFieldsOf, objectField, without } from './native-fields.js';
import { ANTHROPIC } from './read-anthropic-block.js';
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
 * A content part as a block: text (whitespace-only text is left out: the API rejects blank text), an
 * image (`base64` for the four accepted types, `url` otherwise), a PDF or plain-text `document`, each
 * with its `native.anthropic` fields; an Anthropic provider part as the block it holds. Reasoning,
 * provider parts of other formats and other files are left out with a warning.
 */
export function partBlock(part: ContentPart, run: BlockRun): AnthropicContentBlock | undefined {
  if (part.type === 'reasoning') {
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message: 'reasoning part left out: Anthropic takes thinking only in assistant messages',
    });
    return undefined;
  }
  if (part.type === 'provider') return providerBlock(part, run);
  const native = nativeFieldsOf(part, ANTHROPIC);
  if (part.type === 'text') {
    // Built from the part's own Anthropic fields with the text ctxloom owns.
    if (part.text.trim() !== '') return { ...native, type: 'text', text: part.text } as AnthropicTextBlock;
    if (part.text !== '')
      run.warnings.push({
        type: 'dropped-field',
        index: run.index,
        message: 'whitespace-only text left out',
      });
    return undefined;
  }
  const block = part.type === 'image' ? imageBlock(part.url, run) : fileBlock(part, run);
  if (block === undefined) return undefined;
  const source = { ...objectField(native, 'source'), ...block.source };
  // The block's own Anthropic fields with the source and title ctxloom owns.
  return { ...without(native, 'source'), ...block, source } as AnthropicContentBlock;
}

/** An Anthropic provider part as its block; one of another format is left out with a warning. */
export function providerBlock(part: ProviderPart, run: BlockRun): AnthropicContentBlock | undefined {
  if (part.format === ANTHROPIC) {
    // A provider part of format anthropic holds an Anthropic block as the caller's request had it.
    return part.value as unknown as AnthropicContentBlock;
  }
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.format} ${part.kind} left out: Anthropic does not take another provider's objects`,
  });
  return undefined;
}

/** A reasoning part as signed or redacted thinking; left out with a warning when Anthropic would refuse it. */
export function thinkingBlock(part: ReasoningPart, run: BlockRun): AnthropicContentBlock | undefined {
  const native = nativeFieldsOf(part, ANTHROPIC);
  const isOurs = part.provider === undefined || part.provider === ANTHROPIC;
  if (isOurs && part.redactedData !== undefined) {
    // The block's own Anthropic fields with the data ctxloom owns.
    return { ...native, type: 'redacted_thinking', data: part.redactedData } as AnthropicContentBlock;
  }
  if (isOurs && part.signature !== undefined) {
    const block = { ...native, type: 'thinking', thinking: part.text, signature: part.signature };
    // As above: native fields overlaid with the owned ones.
    return block as AnthropicContentBlock;
  }
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: isOurs
      ? 'reasoning without a signature left out (Anthropic takes thinking only with the signature the model returned)'
      : `${part.provider ?? ''} reasoning left out: its signature or payload is valid only for that provider`,
  });
  return undefined;
}

function fileBlock(
  part: Extract<ContentPart, { type: 'file' }>,
  run: BlockRun,
): AnthropicDocumentBlock | undefined {
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

/** The blocks of a user content (reasoning parts are left out with a warning). */
export function contentBlocks(content: Message['content'], run: BlockRun): AnthropicContentBlock[] {
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  return parts.flatMap((part): AnthropicContentBlock[] => {
    const block = partBlock(part, run);
    return block === undefined ? [] : [block];
  });
}

/** The content of a `tool_result` (text, images, documents and Anthropic provider blocks). */
export function toolResultContent(
  message: Message,
  run: BlockRun,
): NonNullable<AnthropicToolResultBlock['content']> {
  if (typeof message.content === 'string') return message.content;
  // Blocks a tool result may hold; provider blocks are the caller's own tool result content.
  return contentBlocks(message.content, run) as NonNullable<AnthropicToolResultBlock['content']>;
}

/**
 * A `tool_result` block: the message's `native.anthropic` fields with the id, content and `is_error`
 * ctxloom owns (`content` left out when it was absent and is still empty).
 */
export function toolResultBlock(
  message: Message,
  run: BlockRun & { readonly id: string },
): AnthropicToolResultBlock {
  const native = nativeFieldsOf(message, ANTHROPIC);
  const isAbsent = layoutOf(message, ANTHROPIC)['content'] === 'absent' && message.content === '';
  // The block's own Anthropic fields with those ctxloom owns.
  return {
    ...native,
    type: 'tool_result',
    tool_use_id: run.id,
    ...(isAbsent ? {} : { content: toolResultContent(message, run) }),
    ...(isToolError(message) ? { is_error: true } : {}),
  } as AnthropicToolResultBlock;
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
