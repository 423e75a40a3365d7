import { ContentHash } from '../tokens/content-hash.js';
import type { AnthropicCacheControl } from './anthropic-types.js';

/** Where a block sits in a request: the cache prefix runs tools → system → messages. */
export type PromptCacheArea = 'tools' | 'system' | 'messages';

/** One content block of a request, in cache order, as a provider's prompt cache sees it. */
export type PromptCacheBlock = {
  /** The part of the request the block belongs to. */
  readonly area: PromptCacheArea;
  /** The index of the tool, system block or message within its area. */
  readonly index: number;
  /** The index of the content block within its message (0 for tools and system blocks). */
  readonly part: number;
  /** The ctxloom section that produced the block, when known (`metadata.section`). */
  readonly section?: string;
  /** The bytes the provider sees for this block (its canonical JSON, cache markers left out). */
  readonly text: string;
  /** Input tokens of the block. */
  readonly tokens: number;
  /** The Anthropic `cache_control` breakpoint on this block, if any. */
  readonly cacheControl?: AnthropicCacheControl;
};

/** One model request as a sequence of cache blocks: the input of the simulator and of `diffRequests`. */
export type PromptCacheRequest = {
  readonly blocks: readonly PromptCacheBlock[];
  /** When the request was sent, in milliseconds (any origin); used for cache lifetimes. */
  readonly at?: number;
  /** The model the request was sent to (picks minimum cacheable lengths). */
  readonly model?: string;
};

/**
 * The running fingerprint of each prefix of a request: `keys[i]` identifies blocks `0..i` (their area,
 * position in the message sequence and bytes), so two requests share a cached prefix up to block `i`
 * exactly when their `keys[i]` are equal.
 */
export function prefixKeys(request: PromptCacheRequest): readonly string[] {
  const keys: string[] = [];
  let previous = '';
  for (const block of request.blocks) {
    previous = new ContentHash()
      .add(previous)
      .add(block.area)
      .add(String(block.part === 0 ? 'start' : 'cont'))
      .add(block.text)
      .digest();
    keys.push(previous);
  }
  return keys;
}

/** The running token totals: `totals[i]` is the tokens of blocks `0..i`. */
export function prefixTokens(request: PromptCacheRequest): readonly number[] {
  const totals: number[] = [];
  let sum = 0;
  for (const block of request.blocks) {
    sum += block.tokens;
    totals.push(sum);
  }
  return totals;
}

/** The request's input tokens (every block). */
export function requestTokens(request: PromptCacheRequest): number {
  return request.blocks.reduce((sum, block) => sum + block.tokens, 0);
}
