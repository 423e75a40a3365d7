import type { Message } from '../core/message.js';

/** The metadata key under which stores keep a message's ISO timestamp (nanobot's `timestamp`). */
export const TIMESTAMP_KEY = 'timestamp';

/**
 * Returns the message with `metadata.timestamp` set to `isoTime` when it has none (stores stamp every
 * message they append, as nanobot does); a message that already has one is returned as is.
 */
export function stampMessage(message: Message, isoTime: string): Message {
  if (typeof message.metadata?.[TIMESTAMP_KEY] === 'string') return message;
  return { ...message, metadata: { ...message.metadata, [TIMESTAMP_KEY]: isoTime } };
}

/** Clamps an archive pointer to `0..count` (non-integers and negatives become 0). */
export function clampLastConsolidated(value: number, count: number): number {
  if (!Number.isInteger(value) || value < 0) return 0;
  return Math.min(value, count);
}
