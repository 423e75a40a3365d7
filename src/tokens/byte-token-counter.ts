import { TextTokenCounter } from './text-token-counter.js';
import type { MessageCostOptions } from './token-counter.js';

/** Options for {@link ByteTokenCounter}. */
export type ByteTokenCounterOptions = MessageCostOptions;

/**
 * nanobot's conservative fallback when no tokenizer is available: one token per UTF-8 byte. It
 * over-counts (a BPE token is several bytes; a CJK character is 3 bytes but often 1 token), so a
 * budget it accepts is always accepted by the real tokenizer.
 */
export class ByteTokenCounter extends TextTokenCounter {
  readonly id = 'bytes';
  readonly kind = 'estimate' as const;

  countText(text: string): number {
    return utf8ByteLength(text);
  }
}

/**
 * The UTF-8 length of a string in bytes, without encoding it. A lone surrogate counts 3 bytes (it is
 * encoded as U+FFFD, as `TextEncoder` does).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
