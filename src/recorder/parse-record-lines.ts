import { ContextError } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';
import type { RecorderRecord } from './request-record.js';

/**
 * Parses the lines of a request log. A last line without its newline is a write in progress and is
 * skipped; any other line that is not a record is `STORE_CORRUPT`.
 */
export function parseRecordLines(text: string, where: string): RecorderRecord[] {
  const lines = text.split('\n');
  const complete = text.endsWith('\n') ? lines.slice(0, -1) : lines.slice(0, -1);
  return complete.flatMap((line, index) => {
    if (line.trim() === '') return [];
    const record = parseRecord(line);
    if (record !== undefined) return [record];
    throw new ContextError({
      code: 'STORE_CORRUPT',
      message: `Line ${index + 1} of the request log ${where} is not a request or usage record; remove the line or the file.`,
    });
  });
}

/** One record from its JSON text, or `undefined` when it is not one. */
export function parseRecord(text: string): RecorderRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || (value['type'] !== 'request' && value['type'] !== 'usage')) return undefined;
  // Lines are written by RequestRecorder from these types; the discriminant is checked above.
  return value as RecorderRecord;
}
