/**
 * Deep equality of plain data (strings, numbers, booleans, null, undefined, arrays and plain
 * objects, as messages and build inputs hold them): same keys with equal values, arrays in order.
 * Anything else (a class instance, a function, a signal) is equal only to itself. @internal
 */
export function samePlainData(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && sameArray(left, right);
  }
  return isPlainObject(left) && isPlainObject(right) && sameRecord(left, right);
}

function sameArray(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  return left.every((item, index) => samePlainData(item, right[index]));
}

function sameRecord(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && samePlainData(left[key], right[key]));
}

/** A plain object (`{}` or `Object.create(null)`), not a class instance. @internal */
export function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
