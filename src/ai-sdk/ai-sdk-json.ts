import type { JsonObject, JsonValue } from '../core/json.js';
import { setField } from '../core/set-field.js';

/**
 * An AI SDK value as JSON, the form ctxloom stores it in: bytes (`Uint8Array`, `Buffer`,
 * `ArrayBuffer`) as base64 strings, `URL`s as their `href`, `undefined` fields left out (as
 * `JSON.stringify` does); everything else as it is. This is what "exact" means for binary data: the
 * same bytes come back, as a base64 string (a form every AI SDK data field takes).
 */
export function aiSdkJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  // As JSON has it: -0 is 0, and a number that is not finite is null.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null;
  if (value instanceof URL) return value.href;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof ArrayBuffer) return Buffer.from(new Uint8Array(value)).toString('base64');
  if (Array.isArray(value)) return value.map((item) => aiSdkJson(item ?? null));
  if (typeof value === 'object') return aiSdkJsonObject(value);
  return null;
}

/** An AI SDK object as a JSON object (see {@link aiSdkJson}). */
export function aiSdkJsonObject(value: object): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined && typeof field !== 'function') setField(out, key, aiSdkJson(field));
  }
  return out;
}

/** The fields of `value` other than `known`, as JSON; `undefined` when there are none. */
export function extraFields(value: object, known: ReadonlySet<string>): JsonObject | undefined {
  let out: Record<string, JsonValue> | undefined;
  for (const [key, field] of Object.entries(value)) {
    if (known.has(key) || field === undefined) continue;
    out ??= {};
    setField(out, key, aiSdkJson(field));
  }
  return out;
}

/** A JSON object, or `undefined` for anything else. */
export function jsonObjectOf(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? aiSdkJsonObject(value)
    : undefined;
}
