import { isRecord } from '../core/is-record.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { NativeFields } from '../core/message.js';
import { setField } from '../core/set-field.js';

/**
 * The key of a native object (`native[format]`) under which an adapter keeps its own record of the
 * native layout: how a content was written (`'string'`, `null`, absent), where the tool calls sat
 * among the blocks, which items a run was made of. It is never sent; every other key is a field of
 * the native object, sent as it is.
 */
export const LAYOUT_KEY = 'ctxloom';

/** What may carry native fields. */
type Carrier = { readonly native?: NativeFields };

/**
 * The fields of `value` other than `owned`, as JSON (a value read from a request is JSON); `undefined`
 * values are left out, since JSON has none.
 */
export function restOf(value: Readonly<Record<string, unknown>>, owned: readonly string[]): JsonObject {
  const rest: Record<string, JsonValue> = {};
  for (const [key, field] of Object.entries(value)) {
    // A field of a parsed JSON request is a JSON value.
    if (field !== undefined && !owned.includes(key)) setField(rest, key, field as JsonValue);
  }
  return rest;
}

/** `{ native: { [format]: fields } }` when `fields` has a key, else `{}` (to spread into a part or message). */
export function nativeEntry(format: string, fields: JsonObject): { readonly native?: NativeFields } {
  return Object.keys(fields).length === 0 ? {} : { native: { [format]: fields } };
}

/** The native fields of `format` on a message, part or call, without the layout record (`{}` when none). */
export function nativeFieldsOf(carrier: Carrier, format: string): JsonObject {
  const fields = carrier.native?.[format];
  if (fields === undefined || !(LAYOUT_KEY in fields)) return fields ?? {};
  const { [LAYOUT_KEY]: _layout, ...rest } = fields;
  return rest;
}

/** The layout record of `format` on a message, part or call (`{}` when none). */
export function layoutOf(carrier: Carrier, format: string): JsonObject {
  const layout = carrier.native?.[format]?.[LAYOUT_KEY];
  return isRecord(layout) ? (layout as JsonObject) : {};
}

/** A JSON object field of native fields (`{}` when absent or not an object). */
export function objectField(fields: JsonObject, key: string): JsonObject {
  const value = fields[key];
  return isRecord(value) ? (value as JsonObject) : {};
}

/** The native fields with `key` left out. */
export function without(fields: JsonObject, key: string): JsonObject {
  if (!(key in fields)) return fields;
  const { [key]: _left, ...rest } = fields;
  return rest;
}
