import { z } from 'zod';
import { formatPath } from '../core/message-schema.js';
import { ctxloomConfigSchema } from './config-schema.js';

/** One problem in a config file: the key path (e.g. `prompt.toolsTemplate`) and what is wrong. */
export type ConfigProblem = { readonly path: string; readonly message: string };

/**
 * Turns a zod issue on a `ctxloom.yaml` into a sentence that names the key, what was expected and
 * what was found; for unknown keys it lists the allowed keys at that level.
 * @internal
 */
export function describeConfigIssue(issue: z.core.$ZodIssue, raw: unknown): ConfigProblem {
  const where = formatPath(issue.path);
  if (issue.code === 'invalid_type') {
    return { path: where, message: `expected ${issue.expected}, got ${kindOf(valueAt(raw, issue.path))}` };
  }
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((key) => JSON.stringify(key)).join(', ');
    const allowed = allowedKeysAt(issue.path).join(', ');
    const noun = issue.keys.length === 1 ? 'unknown key' : 'unknown keys';
    return { path: where, message: `${noun} ${names}; allowed keys: ${allowed}` };
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map((value) => JSON.stringify(value)).join(', ');
    return {
      path: where,
      message: `expected one of ${options}, got ${JSON.stringify(valueAt(raw, issue.path))}`,
    };
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    return { path: where, message: describeBound(issue, valueAt(raw, issue.path)) };
  }
  return { path: where, message: issue.message };
}

function describeBound(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, found: unknown): string {
  const isSmall = issue.code === 'too_small';
  const bound = isSmall ? issue.minimum : issue.maximum;
  const relation = `${isSmall ? '>' : '<'}${issue.inclusive === true ? '=' : ''}`;
  const shown =
    typeof found === 'string' || Array.isArray(found) ? `length ${found.length}` : JSON.stringify(found);
  return `must be ${relation} ${String(bound)}, got ${shown}`;
}

function valueAt(raw: unknown, keys: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

/** The keys the schema allows in the object at `keys` (empty when it is not an object). */
export function allowedKeysAt(keys: readonly PropertyKey[]): readonly string[] {
  let schema: z.ZodType = ctxloomConfigSchema;
  for (const key of keys) {
    const object = unwrapToObject(schema);
    const next = typeof key === 'string' ? object?.shape[key] : undefined;
    if (next === undefined) return [];
    schema = next;
  }
  return Object.keys(unwrapToObject(schema)?.shape ?? {});
}

function unwrapToObject(schema: z.ZodType): z.ZodObject | undefined {
  let current: z.ZodType = schema;
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodDefault ||
    current instanceof z.ZodNullable
  ) {
    const inner = current.unwrap();
    if (!(inner instanceof z.ZodType)) return undefined;
    current = inner;
  }
  return current instanceof z.ZodObject ? current : undefined;
}
