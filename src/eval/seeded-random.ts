/** A seeded pseudo-random source: the same seed gives the same sequence on every machine. */
export type SeededRandom = {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<TItem>(items: readonly TItem[]): TItem;
  /** `count` lowercase hex digits. */
  hex(count: number): string;
};

/**
 * Creates a seeded generator (mulberry32, 32-bit state). Scenario generation uses it instead of
 * `Math.random()`, so an eval run is reproducible from its seed.
 * @example const random = createSeededRandom(7); random.int(1, 6);
 */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => {
      // The index is within bounds for a non-empty list.
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    hex: (count) => Array.from({ length: count }, () => int(0, 15).toString(16)).join(''),
  };
}
