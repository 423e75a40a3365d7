/**
 * Sets an own, enumerable field, even one named `__proto__`: `JSON.parse` makes such fields, and an
 * assignment (`out[key] = value`) would set the object's prototype instead, losing the field.
 */
export function setField<TValue>(out: Record<string, TValue>, key: string, value: TValue): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
