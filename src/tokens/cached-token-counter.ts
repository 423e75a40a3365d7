import { keepsMarkedItems, type ListMark, markList } from '../core/list-mark.js';
import { LruCache } from '../core/lru-cache.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { hashMessageContent, hashText } from './content-hash.js';
import type { TokenCounter, TokenCountKind } from './token-counter.js';

/** Options for {@link CachedTokenCounter}. */
export type CachedTokenCounterOptions = {
  /** The counter whose results are cached. */
  readonly counter: TokenCounter;
  /**
   * Most entries kept per kind (messages and tool lists; texts), least recently used evicted first.
   * An entry is a 64-bit fingerprint and a count, about 100 bytes whatever the text's size.
   * @default 100_000
   */
  readonly maxEntries?: number;
};

/** Defaults of {@link CachedTokenCounterOptions}. */
export const DEFAULT_CACHED_TOKEN_COUNTER = Object.freeze({ maxEntries: 100_000 });

/** Texts shorter than this are counted again rather than fingerprinted (as fast, and nothing to keep). */
const MIN_CACHED_TEXT_LENGTH = 64;

/**
 * Caches another counter's results. A message object already seen is found by identity through a
 * `WeakMap` (messages are immutable), so a turn costs a lookup per old message and a count per new
 * one. Other messages are found by a 64-bit fingerprint of everything that affects their count
 * (role, name, tool call id, tool calls, reasoning, content; not the id, not metadata), so two equal
 * messages share one entry whatever their identity. The cache never holds a copy of a text: its
 * memory is bounded by `maxEntries` fingerprints, not by the size of the history. Tool lists and
 * texts of 64 or more characters are cached the same way.
 */
export class CachedTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly isCached = true;
  readonly kind?: TokenCountKind;
  readonly loadExactCounter?: () => Promise<TokenCounter>;
  readonly #counter: TokenCounter;
  readonly #byObject = new WeakMap<object, number>();
  /**
   * Tool lists counted, by array, with the list as it was: a caller may push to the array it passes
   * again (tool definitions themselves are immutable, like messages).
   */
  readonly #toolLists = new WeakMap<
    readonly ToolDefinition[],
    { readonly list: ListMark<ToolDefinition>; readonly count: number }
  >();
  readonly #byHash: LruCache<string, number>;
  readonly #texts: LruCache<string, number>;
  #hits = 0;
  #misses = 0;

  constructor(options: CachedTokenCounterOptions) {
    this.#counter = options.counter;
    this.id = options.counter.id;
    if (options.counter.kind !== undefined) this.kind = options.counter.kind;
    if (options.counter.loadExactCounter !== undefined)
      this.loadExactCounter = options.counter.loadExactCounter.bind(options.counter);
    const maxEntries = options.maxEntries ?? DEFAULT_CACHED_TOKEN_COUNTER.maxEntries;
    this.#byHash = new LruCache(maxEntries);
    this.#texts = new LruCache(maxEntries);
  }

  /** Cache hits and misses so far (for benchmarks and the inspector). */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /**
   * The count of a message object this cache has already counted, found by identity only (no
   * hashing, no counting), or `undefined`. Lets a trace report what is known about a message without
   * paying for an exact count nothing needed.
   */
  knownMessageCount(message: Message): number | undefined {
    return this.#byObject.get(message);
  }

  countText(text: string): number {
    if (text.length < MIN_CACHED_TEXT_LENGTH) return this.#counter.countText(text);
    const key = hashText(text);
    const cached = this.#texts.get(key);
    if (cached !== undefined) {
      this.#hits += 1;
      return cached;
    }
    this.#misses += 1;
    const count = this.#counter.countText(text);
    this.#texts.set(key, count);
    return count;
  }

  countMessage(message: Message): number {
    const known = this.#byObject.get(message);
    if (known !== undefined) {
      this.#hits += 1;
      return known;
    }
    const count = this.#byContent(`m${hashMessageContent(message)}`, () =>
      this.#counter.countMessage(message),
    );
    this.#byObject.set(message, count);
    return count;
  }

  countMessages(messages: readonly Message[]): number {
    let total = 0;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  countTools(tools: readonly ToolDefinition[]): number {
    const known = this.#toolLists.get(tools);
    if (known !== undefined && known.list.length === tools.length && keepsMarkedItems(known.list)) {
      return known.count;
    }
    const count = this.#byContent(`t${hashText(JSON.stringify(tools))}`, () =>
      this.#counter.countTools(tools),
    );
    this.#toolLists.set(tools, { list: markList(tools), count });
    return count;
  }

  #byContent(key: string, count: () => number): number {
    const cached = this.#byHash.get(key);
    if (cached !== undefined) {
      this.#hits += 1;
      return cached;
    }
    this.#misses += 1;
    const counted = count();
    this.#byHash.set(key, counted);
    return counted;
  }
}

/** The cache of each counter wrapped by {@link withTokenCache}: one per counter object. */
const caches = new WeakMap<TokenCounter, TokenCounter>();

/**
 * `counter` with a {@link CachedTokenCounter} in front of it (itself when it already caches). The
 * same counter always gets the same cache, so every part that counts with it (session replay, the
 * builder, the governor, consolidation) shares what was counted: a message counted by one is known
 * to the others.
 */
export function withTokenCache(counter: TokenCounter): TokenCounter {
  if (counter.isCached === true) return counter;
  let cached = caches.get(counter);
  if (cached === undefined) {
    cached = new CachedTokenCounter({ counter });
    caches.set(counter, cached);
  }
  return cached;
}
