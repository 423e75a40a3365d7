import { isRecord } from './is-record.js';

/**
 * One field that does not have the shape of a ctxloom message: where it is (`history[3].role`),
 * what it must be, and what was received (its type and value, as {@link describeValue} writes it).
 */
export type ShapeIssue = {
  readonly path: string;
  readonly expected: string;
  readonly received: string;
};

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant', 'tool']);
const OPTIONAL_STRINGS = ['name', 'toolCallId', 'reasoning'] as const;

/**
 * Checks that `value` has the shape of a {@link Message} (the field types the schema gives; no
 * unknown-key or tool-pairing rules, which the repair filters handle, so a tool call's `null` name
 * or id from a relay passes), by hand and without allocating while the shape is right (the path is
 * only written for a problem), so it is cheap enough for every build input. Returns the first
 * problem, or `undefined` when the shape is right.
 *
 * @example checkMessageShape({ role: 'usr', content: 'hi' }, 'history[0]') // → { path: 'history[0].id', … }
 */
export function checkMessageShape(value: unknown, path: string): ShapeIssue | undefined {
  return under(path, messageIssue(value));
}

/** Checks message content: a string, or an array of text, image and file parts. */
export function checkContentShape(value: unknown, path: string): ShapeIssue | undefined {
  return under(path, contentIssue(value));
}

/** A problem found below some value: its path relative to that value (`''`, `.role`, `[2].text`). */
type RelativeIssue = ShapeIssue;

function messageIssue(value: unknown): RelativeIssue | undefined {
  if (!isRecord(value)) return issue('', { expected: 'a message object', got: value });
  if (typeof value['id'] !== 'string' || value['id'] === '')
    return issue('.id', { expected: 'a non-empty string', got: value['id'] });
  if (!ROLES.has(value['role']))
    return issue('.role', { expected: 'one of "system", "user", "assistant", "tool"', got: value['role'] });
  const content = contentIssue(value['content']);
  if (content !== undefined) return under('.content', content);
  for (const key of OPTIONAL_STRINGS) {
    const field = value[key];
    if (field !== undefined && typeof field !== 'string')
      return issue(`.${key}`, { expected: 'a string', got: field });
  }
  const calls = value['toolCalls'];
  if (calls !== undefined) {
    const callIssue = toolCallsIssue(calls);
    if (callIssue !== undefined) return under('.toolCalls', callIssue);
  }
  const metadata = value['metadata'];
  if (metadata !== undefined && !isRecord(metadata))
    return issue('.metadata', { expected: 'an object', got: metadata });
  return undefined;
}

function contentIssue(value: unknown): RelativeIssue | undefined {
  if (typeof value === 'string') return undefined;
  if (!Array.isArray(value))
    return issue('', { expected: 'a string or an array of content parts', got: value });
  for (let index = 0; index < value.length; index += 1) {
    const found = partIssue(value[index]);
    if (found !== undefined) return under(`[${index}]`, found);
  }
  return undefined;
}

function partIssue(part: unknown): RelativeIssue | undefined {
  if (!isRecord(part)) return issue('', { expected: 'a content part object', got: part });
  switch (part['type']) {
    case 'text':
      return typeof part['text'] === 'string'
        ? undefined
        : issue('.text', { expected: 'a string', got: part['text'] });
    case 'image':
      return typeof part['url'] === 'string' && part['url'] !== ''
        ? undefined
        : issue('.url', { expected: 'a non-empty string (URL or data URL)', got: part['url'] });
    case 'file':
      return filePartIssue(part);
    case 'reasoning':
      return typeof part['text'] === 'string'
        ? undefined
        : issue('.text', { expected: 'a string', got: part['text'] });
    case 'provider':
      return providerPartIssue(part);
    default:
      return issue('.type', {
        expected: 'one of "text", "image", "file", "reasoning", "provider"',
        got: part['type'],
      });
  }
}

function filePartIssue(part: Readonly<Record<string, unknown>>): RelativeIssue | undefined {
  if (typeof part['url'] !== 'string' || part['url'] === '')
    return issue('.url', { expected: 'a non-empty string (URL or data URL)', got: part['url'] });
  return typeof part['mediaType'] === 'string'
    ? undefined
    : issue('.mediaType', { expected: 'a string', got: part['mediaType'] });
}

function providerPartIssue(part: Readonly<Record<string, unknown>>): RelativeIssue | undefined {
  if (typeof part['format'] !== 'string' || typeof part['kind'] !== 'string')
    return issue('.format', { expected: 'a format and a kind (strings)', got: part['format'] });
  return isRecord(part['value'])
    ? undefined
    : issue('.value', { expected: 'the native object', got: part['value'] });
}

function toolCallsIssue(calls: unknown): RelativeIssue | undefined {
  if (!Array.isArray(calls)) return issue('', { expected: 'an array of tool calls', got: calls });
  for (let index = 0; index < calls.length; index += 1) {
    const found = toolCallIssue(calls[index]);
    if (found !== undefined) return under(`[${index}]`, found);
  }
  return undefined;
}

function toolCallIssue(call: unknown): RelativeIssue | undefined {
  if (!isRecord(call))
    return issue('', { expected: 'a tool call object ({ id, name, arguments })', got: call });
  // A relay's `null` id or name is kept: the strip-malformed-tool-calls filter removes such a call.
  for (const key of ['id', 'name'] as const) {
    if (typeof call[key] !== 'string' && call[key] !== null)
      return issue(`.${key}`, { expected: 'a string', got: call[key] });
  }
  if (typeof call['arguments'] !== 'string')
    return issue('.arguments', { expected: 'a string (the raw JSON text)', got: call['arguments'] });
  return undefined;
}

/** `found` with `prefix` written before its path (only ever called for a problem). */
function under(prefix: string, found: RelativeIssue | undefined): ShapeIssue | undefined {
  return found === undefined ? undefined : { ...found, path: `${prefix}${found.path}` };
}

function issue(path: string, expectation: { readonly expected: string; readonly got: unknown }): ShapeIssue {
  return { path, expected: expectation.expected, received: describeValue(expectation.got) };
}

/**
 * Describes a received value by type and value, for error messages: `the string "8000"`,
 * `the number 42`, `null`, `undefined`, `an array of 3 items`, `an object with keys role, text`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return 'an empty object';
    const shown = keys.slice(0, 5).join(', ');
    return `an object with keys ${shown}${keys.length > 5 ? ', …' : ''}`;
  }
  if (typeof value === 'function') return 'a function';
  return `the ${typeof value} ${String(value)}`;
}
