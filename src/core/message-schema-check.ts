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
 * or id from a relay passes), by hand and without
 * allocating, so it is cheap enough for every build input. Returns the first problem, or
 * `undefined` when the shape is right.
 *
 * @example checkMessageShape({ role: 'usr', content: 'hi' }, 'history[0]') // → { path: 'history[0].id', … }
 */
export function checkMessageShape(value: unknown, path: string): ShapeIssue | undefined {
  if (!isRecord(value)) return issue(path, { expected: 'a message object', got: value });
  if (typeof value['id'] !== 'string' || value['id'] === '')
    return issue(`${path}.id`, { expected: 'a non-empty string', got: value['id'] });
  if (!ROLES.has(value['role']))
    return issue(`${path}.role`, {
      expected: 'one of "system", "user", "assistant", "tool"',
      got: value['role'],
    });
  const content = checkContentShape(value['content'], `${path}.content`);
  if (content !== undefined) return content;
  for (const key of OPTIONAL_STRINGS) {
    const field = value[key];
    if (field !== undefined && typeof field !== 'string')
      return issue(`${path}.${key}`, { expected: 'a string', got: field });
  }
  const calls = value['toolCalls'];
  if (calls !== undefined) {
    const callIssue = checkToolCallsShape(calls, `${path}.toolCalls`);
    if (callIssue !== undefined) return callIssue;
  }
  const metadata = value['metadata'];
  if (metadata !== undefined && !isRecord(metadata))
    return issue(`${path}.metadata`, { expected: 'an object', got: metadata });
  return undefined;
}

/** Checks message content: a string, or an array of text, image and file parts. */
export function checkContentShape(value: unknown, path: string): ShapeIssue | undefined {
  if (typeof value === 'string') return undefined;
  if (!Array.isArray(value))
    return issue(path, { expected: 'a string or an array of content parts', got: value });
  for (let index = 0; index < value.length; index += 1) {
    const found = checkPartShape(value[index], `${path}[${index}]`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function checkPartShape(part: unknown, path: string): ShapeIssue | undefined {
  if (!isRecord(part)) return issue(path, { expected: 'a content part object', got: part });
  switch (part['type']) {
    case 'text':
      return typeof part['text'] === 'string'
        ? undefined
        : issue(`${path}.text`, { expected: 'a string', got: part['text'] });
    case 'image':
      return typeof part['url'] === 'string' && part['url'] !== ''
        ? undefined
        : issue(`${path}.url`, { expected: 'a non-empty string (URL or data URL)', got: part['url'] });
    case 'file':
      if (typeof part['url'] !== 'string' || part['url'] === '')
        return issue(`${path}.url`, { expected: 'a non-empty string (URL or data URL)', got: part['url'] });
      return typeof part['mediaType'] === 'string'
        ? undefined
        : issue(`${path}.mediaType`, { expected: 'a string', got: part['mediaType'] });
    default:
      return issue(`${path}.type`, { expected: 'one of "text", "image", "file"', got: part['type'] });
  }
}

function checkToolCallsShape(calls: unknown, path: string): ShapeIssue | undefined {
  if (!Array.isArray(calls)) return issue(path, { expected: 'an array of tool calls', got: calls });
  for (let index = 0; index < calls.length; index += 1) {
    const call: unknown = calls[index];
    const at = `${path}[${index}]`;
    if (!isRecord(call))
      return issue(at, { expected: 'a tool call object ({ id, name, arguments })', got: call });
    // A relay's `null` id or name is kept: the strip-malformed-tool-calls filter removes such a call.
    for (const key of ['id', 'name'] as const) {
      if (typeof call[key] !== 'string' && call[key] !== null)
        return issue(`${at}.${key}`, { expected: 'a string', got: call[key] });
    }
    if (typeof call['arguments'] !== 'string')
      return issue(`${at}.arguments`, { expected: 'a string (the raw JSON text)', got: call['arguments'] });
  }
  return undefined;
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
