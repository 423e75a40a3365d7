import { ContextError } from '../core/errors.js';
import { TRUNCATION_SUFFIX } from '../core/truncate-text.js';
import { utf8ByteLength } from './byte-token-counter.js';

/** Encodes and decodes token ids: `TiktokenTokenCounter` and `HFTokenCounter` are tokenizers. */
export interface TextTokenizer {
  encode(text: string): readonly number[];
  decode(tokens: readonly number[]): string;
}

/** Options for {@link truncateTextToTokens}. */
export type TruncateTextToTokensOptions = {
  /** The most tokens the result may have, suffix included. ≤ 0 means no limit. */
  readonly maxTokens: number;
  /** Encodes and decodes. @default none: UTF-8 bytes stand in for tokens (nanobot's fallback) */
  readonly tokenizer?: TextTokenizer;
  /** Appended when the text is cut. @default '\n... (truncated)' */
  readonly suffix?: string;
};

/** Defaults of {@link TruncateTextToTokensOptions}. */
export const DEFAULT_TRUNCATE_TEXT_TO_TOKENS = Object.freeze({ suffix: TRUNCATION_SUFFIX });

/**
 * Cuts a text to at most `maxTokens` tokens, suffix included: unchanged when
 * `maxTokens ≤ 0` or the text fits; else the longest token prefix such that
 * `decode(prefix) + suffix` re-encodes to ≤ `maxTokens` tokens; when the suffix alone needs
 * `maxTokens` tokens or more, the longest prefix of at most `maxTokens` tokens without a suffix. The
 * search runs over character prefixes of the original text, so the result is always a clean prefix
 * (a token boundary inside a multi-byte character never leaves U+FFFD behind) and is at least as long
 * as the best decoded token prefix. Without a tokenizer, UTF-8 bytes are the unit and the cut never
 * splits a code point.
 * @throws ContextError `INVALID_OPTIONS` when `maxTokens` is not a finite number.
 */
export function truncateTextToTokens(text: string, options: TruncateTextToTokensOptions): string {
  const { maxTokens, tokenizer } = options;
  if (!Number.isFinite(maxTokens)) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `truncateTextToTokens: maxTokens must be a finite number, got ${String(maxTokens)}.`,
    });
  }
  const suffix = options.suffix ?? DEFAULT_TRUNCATE_TEXT_TO_TOKENS.suffix;
  if (maxTokens <= 0) return text;
  return tokenizer === undefined
    ? truncateBytes(text, { maxBytes: Math.floor(maxTokens), suffix })
    : truncateTokens(text, { maxTokens: Math.floor(maxTokens), suffix, tokenizer });
}

function truncateTokens(
  text: string,
  options: { readonly maxTokens: number; readonly suffix: string; readonly tokenizer: TextTokenizer },
): string {
  const { maxTokens, tokenizer } = options;
  const tokens = tokenizer.encode(text);
  if (tokens.length <= maxTokens) return text;
  const suffix = tokenizer.encode(options.suffix).length >= maxTokens ? '' : options.suffix;
  // The first maxTokens tokens cover about this many characters; the kept prefix is never longer.
  const upper = Math.min(text.length, tokenizer.decode(tokens.slice(0, maxTokens)).length + 8);
  return (
    longestPrefix(text, { upper, fits: (prefix) => tokenizer.encode(prefix + suffix).length <= maxTokens }) +
    suffix
  );
}

/**
 * The longest prefix of `text` (at most `upper` UTF-16 units, never ending inside a surrogate pair)
 * that `fits`. Searching character prefixes of the original text rather than decoding token prefixes
 * means a cut inside a multi-byte character can never leave U+FFFD behind.
 */
function longestPrefix(
  text: string,
  search: { readonly upper: number; readonly fits: (prefix: string) => boolean },
): string {
  const boundary = (end: number): number => (isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end);
  let low = 0;
  let high = search.upper;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (search.fits(text.slice(0, boundary(middle)))) low = middle;
    else high = middle - 1;
  }
  let end = boundary(low);
  while (end > 0 && !search.fits(text.slice(0, end))) end = boundary(end - 1);
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function truncateBytes(
  text: string,
  options: { readonly maxBytes: number; readonly suffix: string },
): string {
  if (utf8ByteLength(text) <= options.maxBytes) return text;
  const suffixBytes = utf8ByteLength(options.suffix);
  if (suffixBytes >= options.maxBytes) return cutToBytes(text, options.maxBytes);
  return cutToBytes(text, options.maxBytes - suffixBytes) + options.suffix;
}

/** The longest prefix of whole code points that fits in `maxBytes` UTF-8 bytes. */
function cutToBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += utf8ByteLength(character);
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}
