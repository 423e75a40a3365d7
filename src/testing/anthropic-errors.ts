import type { ScriptedReply } from './scripted-json-server.js';

type Json = Record<string, unknown>;

/** An Anthropic error body (`details.error_code` for the typed errors the SDK raises). */
export function anthropicError(type: string, message: string, details?: Json): Json {
  return { type: 'error', error: { type, message, ...(details === undefined ? {} : { details }) } };
}

/** A 400 `invalid_request_error`. */
export function anthropicInvalid(message: string): ScriptedReply {
  return { status: 400, body: anthropicError('invalid_request_error', message) };
}

/** A 400 with an error code, which the SDK raises as its typed error (e.g. `CompactionContentMismatchError`). */
export function anthropicCoded(code: string, message: string): ScriptedReply {
  return { status: 400, body: anthropicError('invalid_request_error', message, { error_code: code }) };
}
