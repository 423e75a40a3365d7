/**
 * A small least-recently-used map with a fixed capacity, used by the token and file caches.
 * @internal
 */
export class LruCache<TKey, TValue> {
  readonly #capacity: number;
  readonly #entries = new Map<TKey, TValue>();

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: TKey): TValue | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  delete(key: TKey): void {
    this.#entries.delete(key);
  }

  set(key: TKey, value: TValue): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
