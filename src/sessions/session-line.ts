import { isUtf8 } from 'node:buffer';
import { isRecord } from '../core/is-record.js';
import type { Message } from '../core/message.js';
import type { FileLine } from './file-lines.js';
import { derivedMessageId, fromNanobotDict, toNanobotDict } from './nanobot-message.js';

/** What one line of a nanobot session file holds. */
export type SessionLine =
  | { readonly kind: 'blank' }
  | { readonly kind: 'metadata'; readonly value: Readonly<Record<string, unknown>> }
  | { readonly kind: 'provider_state'; readonly value: Readonly<Record<string, unknown>> }
  | { readonly kind: 'message'; readonly message: Message; readonly invalidUtf8: boolean }
  | { readonly kind: 'corrupt'; readonly reason: string };

/**
 * Reads one line of a session file (nanobot's format): the `_type: 'metadata'` record, the
 * `_type: 'provider_state'` record, a message dict, or a line that cannot be read (not JSON, not an
 * object, an unknown role, longer than the line limit). `ordinal` is the number of messages before
 * it, used to derive the id of a message stored without one. Bytes that are not valid UTF-8 are read
 * as U+FFFD and flagged; the bytes themselves are the caller's to keep.
 */
export function parseSessionLine(line: FileLine, ordinal: number): SessionLine {
  if (line.bytes === undefined)
    return { kind: 'corrupt', reason: `${line.length} bytes, longer than the line limit (maxLineBytes)` };
  const text = line.bytes.toString('utf8');
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      kind: 'corrupt',
      reason: line.terminated
        ? 'not valid JSON'
        : 'not valid JSON; a torn last line (its writer was killed mid-line)',
    };
  }
  if (isRecord(value) && value['_type'] === 'metadata') return { kind: 'metadata', value };
  if (isRecord(value) && value['_type'] === 'provider_state') return { kind: 'provider_state', value };
  const message = fromNanobotDict(value, derivedMessageId(ordinal, line.bytes));
  if (typeof message === 'string') return { kind: 'corrupt', reason: message };
  return { kind: 'message', message, invalidUtf8: !isUtf8(line.bytes) };
}

/** The line a message is written as (its nanobot dict as JSON, UTF-8, no escaping of non-ASCII; no newline). */
export function formatMessageLine(message: Message): string {
  return JSON.stringify(toNanobotDict(message));
}
