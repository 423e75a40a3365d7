import { isRecord } from '../core/is-record.js';

/** Arguments parsed from a call's JSON text, or the message telling the model what was wrong. @internal */
export type ParsedArguments =
  | { readonly ok: true; readonly value: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly error: string };

/** The largest argument text read (larger calls are refused, not parsed). */
export const MAX_ARGUMENT_CHARS = 1_000_000;

/**
 * Parses a tool call's `arguments` (JSON text; empty means `{}`), refusing what is not one JSON object
 * and any key the tool does not take. @internal
 */
export function parseToolArguments(
  text: string,
  tool: { readonly name: string; readonly keys: readonly string[] },
): ParsedArguments {
  if (text.length > MAX_ARGUMENT_CHARS)
    return {
      ok: false,
      error: `${tool.name}: the arguments are ${text.length} characters, over the limit of ${MAX_ARGUMENT_CHARS}.`,
    };
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return { ok: false, error: `${tool.name}: the arguments are not valid JSON; send one JSON object.` };
  }
  if (!isRecord(value)) return { ok: false, error: `${tool.name}: the arguments must be one JSON object.` };
  const unknown = Object.keys(value).filter((key) => !tool.keys.includes(key));
  if (unknown.length > 0)
    return {
      ok: false,
      error: `${tool.name}: unknown argument${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; it takes ${tool.keys.join(', ')}.`,
    };
  return { ok: true, value };
}

/** A string argument, or the error saying what it must be. @internal */
export function stringArgument(
  value: unknown,
  where: { readonly tool: string; readonly name: string; readonly isRequired: boolean },
): { readonly value: string | undefined } | { readonly error: string } {
  if (value === undefined || value === null) {
    return where.isRequired
      ? { error: `${where.tool}: \`${where.name}\` is required (a string).` }
      : { value: undefined };
  }
  if (typeof value !== 'string') return { error: `${where.tool}: \`${where.name}\` must be a string.` };
  return { value };
}

/** A non-negative integer argument, or the error. @internal */
export function integerArgument(
  value: unknown,
  where: { readonly tool: string; readonly name: string; readonly min: number; readonly max: number },
): { readonly value: number | undefined } | { readonly error: string } {
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < where.min || value > where.max)
    return {
      error: `${where.tool}: \`${where.name}\` must be an integer from ${where.min} to ${where.max}.`,
    };
  return { value };
}

/** A list of strings argument (a single string counts as a list of one), or the error. @internal */
export function stringListArgument(
  value: unknown,
  where: { readonly tool: string; readonly name: string },
): { readonly value: readonly string[] | undefined } | { readonly error: string } {
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value === 'string') return { value: [value] };
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return { value };
  return { error: `${where.tool}: \`${where.name}\` must be a list of strings.` };
}
