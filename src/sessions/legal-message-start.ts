import type { Message } from '../core/message.js';

/**
 * nanobot's `find_legal_message_start`: scanning forward, a tool result whose id was not declared by
 * an earlier assistant message in the slice moves the start just after it (and forgets the ids
 * declared so far). Returns the index of the first message of the legal suffix.
 */
export function findLegalMessageStart(messages: readonly Message[]): number {
  let start = 0;
  let declared = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) declared.add(call.id);
    } else if (message.role === 'tool') {
      if (message.toolCallId === undefined || !declared.has(message.toolCallId)) {
        start = index + 1;
        declared = new Set();
      }
    }
  }
  return start;
}
