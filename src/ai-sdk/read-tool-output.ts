import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { ContentPart, Message } from '../core/message.js';
import { mediaPart, mediaUrl } from './ai-sdk-media.js';
import { type AiSdkPartLike, fieldOf, stringOf } from './ai-sdk-message-like.js';

/** Where a reader records the AI SDK part each ctxloom part was read from. */
export type PartRecorder = { readonly set: (read: object, source: AiSdkPartLike) => void };

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
    readonly parts: PartRecorder;
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
    readonly parts: PartRecorder;
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

const DATA_ITEMS = new Set(['media', 'image-data', 'file-data', 'file']);

function contentItem(item: object): ContentPart | undefined {
  const type = fieldOf(item, 'type');
  const mediaType = stringOf(item, 'mediaType');
  if (type === 'text') {
    const text = stringOf(item, 'text');
    return text === undefined ? undefined : { type: 'text', text };
  }
  if (typeof type === 'string' && DATA_ITEMS.has(type)) {
    const url = mediaUrl(fieldOf(item, 'data'), mediaType ?? 'application/octet-stream');
    return url === undefined ? undefined : mediaPart({ url, mediaType, filename: fieldOf(item, 'filename') });
  }
  const url = stringOf(item, 'url');
  if (url === undefined) return undefined;
  if (type === 'image-url') return { type: 'image', url };
  return type === 'file-url'
    ? mediaPart({ url, mediaType: mediaType ?? 'application/octet-stream' })
    : undefined;
}
