import { SessionStoreError } from '../core/errors.js';
import type { Message } from '../core/message.js';

/** Parses a stored message row (JSON of a {@link Message}); a bad row is a `STORE_CORRUPT` error. */
export function parseMessageRow(
  data: string,
  where: { readonly backend: string; readonly key: string },
): Message {
  try {
    // Rows are written only by this store from validated Message objects.
    return JSON.parse(data) as Message;
  } catch (error) {
    throw new SessionStoreError({
      code: 'STORE_CORRUPT',
      backend: where.backend,
      operation: 'load',
      message: `A stored message of session ${JSON.stringify(where.key)} is not valid JSON; the ${where.backend} database was changed outside ctxloom.`,
      cause: error,
    });
  }
}

/** Parses a stored metadata column; anything but a JSON object reads as `{}`. */
export function parseMetadataColumn(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    // A non-null, non-array JSON value is a plain record.
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
