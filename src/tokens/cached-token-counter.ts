import { LruCache } from '../core/lru-cache.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { TokenCounter } from './token-counter.js';

/** Options for {@link CachedTokenCounter}. */
export type CachedTokenCounterOptions = {
  /** The counter whose results are cached. */
  readonly counter: TokenCounter;
  /** Most message and text entries kept (least recently used are evicted). @default 100_000 */
  readonly maxEntries?: number;
};

/**
 * Caches another counter's results, keyed by content: two messages with the same role, content and
 * fields share one entry whatever their object identity or id. Message objects already seen are
 * found first through a `WeakMap` (messages are immutable), so a turn costs a lookup per old message
 * and a count per new one. Tool lists are cached the same way (identity first, then JSON).
 */
export class CachedTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly isCached = true;
  readonly #counter: TokenCounter;
  readonly #byObject = new WeakMap<object, number>();
  readonly #byKey: LruCache<string, number>;
  readonly #texts: LruCache<string, number>;
  #hits = 0;
  #misses = 0;

  constructor(options: CachedTokenCounterOptions) {
    this.#counter = options.counter;
    this.id = options.counter.id;
    const maxEntries = options.maxEntries ?? 100_000;
    this.#byKey = new LruCache(maxEntries);
    this.#texts = new LruCache(maxEntries);
  }

  /** Cache hits and misses so far (for benchmarks and the inspector). */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  countText(text: string): number {
    if (text.length < 64) return this.#counter.countText(text);
    const cached = this.#texts.get(text);
    if (cached !== undefined) {
      this.#hits += 1;
      return cached;
    }
    this.#misses += 1;
    const count = this.#counter.countText(text);
    this.#texts.set(text, count);
    return count;
  }

  countMessage(message: Message): number {
    const known = this.#byObject.get(message);
    if (known !== undefined) {
      this.#hits += 1;
      return known;
    }
    const key = contentKey(message);
    let count = this.#byKey.get(key);
    if (count === undefined) {
      this.#misses += 1;
      count = this.#counter.countMessage(message);
      this.#byKey.set(key, count);
    } else {
      this.#hits += 1;
    }
    this.#byObject.set(message, count);
    return count;
  }

  countMessages(messages: readonly Message[]): number {
    let total = 0;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  countTools(tools: readonly ToolDefinition[]): number {
    const known = this.#byObject.get(tools);
    if (known !== undefined) return known;
    const key = `tools\u0000${JSON.stringify(tools)}`;
    let count = this.#byKey.get(key);
    if (count === undefined) {
      count = this.#counter.countTools(tools);
      this.#byKey.set(key, count);
    }
    this.#byObject.set(tools, count);
    return count;
  }
}

/** Wraps a counter in a {@link CachedTokenCounter} unless it already caches. */
export function withTokenCache(counter: TokenCounter): TokenCounter {
  return counter.isCached === true ? counter : new CachedTokenCounter({ counter });
}

/** Everything that affects a message's count, and nothing else (not the id, not metadata). */
function contentKey(message: Message): string {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = message.toolCalls === undefined ? '' : JSON.stringify(message.toolCalls);
  return [
    message.role,
    message.name ?? '',
    message.toolCallId ?? '',
    calls,
    message.reasoning ?? '',
    content,
  ].join('\u0000');
}
