import type { AdapterWarning } from './adapter-warning.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** What {@link scrubLoneSurrogates} returns: the value (the same object when clean) and how many were replaced. */
export type ScrubResult<TValue> = { readonly value: TValue; readonly replaced: number };

/**
 * Replaces every lone UTF-16 surrogate in the strings of a JSON-like value (plain objects, arrays,
 * strings) with U+FFFD, copy-on-write: a value without one comes back as the same object. Providers
 * reject such strings (they are not valid UTF-8 once encoded). Other objects (`Uint8Array`, `URL`)
 * are left as they are.
 */
export function scrubLoneSurrogates<TValue>(value: TValue): ScrubResult<TValue> {
  const counter = { replaced: 0 };
  const scrubbed = scrub(value, counter);
  // scrub returns a value of the same shape: strings for strings, copies for containers.
  return { value: scrubbed as TValue, replaced: counter.replaced };
}

/** {@link scrubLoneSurrogates}, naming the replacements in `warnings` (a `repaired` warning at `index`). */
export function scrubWithWarning<TValue>(
  value: TValue,
  run: { readonly index: number; readonly warnings: AdapterWarning[] },
): TValue {
  const result = scrubLoneSurrogates(value);
  if (result.replaced > 0) {
    run.warnings.push({
      type: 'repaired',
      index: run.index,
      message: `${result.replaced} lone surrogate(s) replaced with U+FFFD`,
    });
  }
  return result.value;
}

function scrub(value: unknown, counter: { replaced: number }): unknown {
  if (typeof value === 'string') {
    LONE_SURROGATE.lastIndex = 0;
    if (!LONE_SURROGATE.test(value)) return value;
    return value.replace(LONE_SURROGATE, () => {
      counter.replaced += 1;
      return '\uFFFD';
    });
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const next = scrub(item, counter);
      if (next === item) return;
      copy ??= value.slice();
      copy[index] = next;
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = scrub(item, counter);
    if (next === item) continue;
    copy ??= { ...value };
    copy[key] = next;
  }
  return copy ?? value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
