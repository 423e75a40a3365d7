import { createHash } from 'node:crypto';
import type { Message } from '../core/message.js';

/**
 * The content hash of a message as recorded: the first 32 hex digits of the SHA-256 of the JSON of
 * its role, name, content, tool calls, tool-call id and reasoning (ids and metadata left out, so a
 * message rebuilt with the same content has the same hash).
 */
export function messageContentHash(message: Message): string {
  const canonical = JSON.stringify([
    message.role,
    message.name ?? null,
    message.content,
    message.toolCalls ?? null,
    message.toolCallId ?? null,
    message.reasoning ?? null,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex').slice(0, 32);
}
