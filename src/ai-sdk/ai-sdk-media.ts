import type { ContentPart } from '../core/message.js';
import { fieldOf } from './ai-sdk-message-like.js';

/**
 * The data of an AI SDK image or file part as a URL string: URLs as they are, base64 strings and bytes
 * as `data:` URLs, AI SDK 7 tagged data (`{ type: 'data' | 'url' | 'text' }`) unwrapped. `undefined`
 * for what has no URL form (a provider file reference).
 */
export function mediaUrl(data: unknown, mediaType: string): string | undefined {
  if (data instanceof URL) return data.href;
  if (typeof data === 'string')
    return /^(https?:|data:)/i.test(data) ? data : `data:${mediaType};base64,${data}`;
  if (data instanceof Uint8Array) return `data:${mediaType};base64,${Buffer.from(data).toString('base64')}`;
  if (data instanceof ArrayBuffer) return mediaUrl(new Uint8Array(data), mediaType);
  if (typeof data !== 'object' || data === null) return undefined;
  const tag = fieldOf(data, 'type');
  if (tag === 'data') return mediaUrl(fieldOf(data, 'data'), mediaType);
  if (tag === 'url') return mediaUrl(fieldOf(data, 'url'), mediaType);
  if (tag === 'text') {
    const text = fieldOf(data, 'text');
    return typeof text === 'string'
      ? `data:${mediaType};base64,${Buffer.from(text).toString('base64')}`
      : undefined;
  }
  return undefined;
}

/** A ctxloom image or file part for media read from the AI SDK (`image/*` becomes an image part). */
export function mediaPart(options: {
  readonly url: string;
  readonly mediaType: string | undefined;
  readonly filename?: unknown;
}): ContentPart {
  const { url, mediaType } = options;
  if (mediaType === undefined || mediaType.startsWith('image/')) {
    return { type: 'image', url, ...(mediaType === undefined ? {} : { mediaType }) };
  }
  return {
    type: 'file',
    url,
    mediaType,
    ...(typeof options.filename === 'string' ? { filename: options.filename } : {}),
  };
}
