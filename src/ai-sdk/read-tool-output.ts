import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { ContentPart, Message } from '../core/message.js';
import { mediaPart, mediaUrl } from './ai-sdk-media.js';
import { type AiSdkPartLike, fieldOf } from './ai-sdk-message-like.js';

/** What a tool result's `output` becomes: the ctxloom content and whether it reports a failure. */
export type ReadToolOutput = { readonly content: Message['content']; readonly isError: boolean };

/**
 * Reads the `output` of an AI SDK `tool-result` part: `text` and `error-text` as their text, `json`
 * and `error-json` as JSON text, `execution-denied` as a sentence, `content` as parts (each part is
 * recorded in `parts`, so an unchanged one is given back as it was). Errors and denials are failures.
 */
export function readToolOutput(
  output: unknown,
  run: {
    readonly index: number;
    readonly warnings: AdapterWarning[];
    readonly parts: Map<object, AiSdkPartLike>;
  },
): ReadToolOutput {
  if (typeof output !== 'object' || output === null) return { content: '', isError: false };
  const type = fieldOf(output, 'type');
  const value = fieldOf(output, 'value');
  switch (type) {
    case 'text':
    case 'error-text':
      return { content: typeof value === 'string' ? value : '', isError: type === 'error-text' };
    case 'json':
    case 'error-json':
      return { content: JSON.stringify(value ?? null), isError: type === 'error-json' };
    case 'execution-denied': {
      const reason = fieldOf(output, 'reason');
      return {
        content: `Tool execution denied${typeof reason === 'string' ? `: ${reason}` : ''}`,
        isError: true,
      };
    }
    case 'content':
      return { content: contentItems(Array.isArray(value) ? value : [], run), isError: false };
    default:
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `tool output of type ${JSON.stringify(type)} read as empty text (kept as it is)`,
      });
      return { content: '', isError: false };
  }
}

function contentItems(
  items: readonly unknown[],
  run: {
    readonly index: number;
    readonly warnings: AdapterWarning[];
    readonly parts: Map<object, AiSdkPartLike>;
  },
): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const part = contentItem(item);
    if (part === undefined) {
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `tool output part ${JSON.stringify(fieldOf(item, 'type'))} not read (kept while the result is unchanged)`,
      });
      continue;
    }
    // Items are parts of the AI SDK's union: each has a string `type`.
    run.parts.set(part, item as AiSdkPartLike);
    parts.push(part);
  }
  return parts;
}

function contentItem(item: object): ContentPart | undefined {
  const type = fieldOf(item, 'type');
  const mediaType = fieldOf(item, 'mediaType');
  const media = typeof mediaType === 'string' ? mediaType : undefined;
  if (type === 'text') {
    const text = fieldOf(item, 'text');
    return typeof text === 'string' ? { type: 'text', text } : undefined;
  }
  if (type === 'media' || type === 'image-data' || type === 'file-data' || type === 'file') {
    const url = mediaUrl(fieldOf(item, 'data'), media ?? 'application/octet-stream');
    return url === undefined
      ? undefined
      : mediaPart({ url, mediaType: media, filename: fieldOf(item, 'filename') });
  }
  if (type === 'image-url' || type === 'file-url') {
    const url = fieldOf(item, 'url');
    if (typeof url !== 'string') return undefined;
    return type === 'image-url'
      ? { type: 'image', url }
      : mediaPart({ url, mediaType: media ?? 'application/octet-stream' });
  }
  return undefined;
}
