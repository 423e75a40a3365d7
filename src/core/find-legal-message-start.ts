import type { Message } from './message.js';

/**
 * nanobot's `find_legal_message_start`: the index from which `messages` has no illegal tool-result
 * prefix. Scanning forward with the set of ids declared by assistants seen so far, a tool result
 * whose id was not declared (or is missing) moves the start just after it and resets the set.
 * Returns 0 when the list is already legal (and `messages.length` when every message is such a result).
 */
export function findLegalMessageStart(messages: readonly Message[]): number {
  let start = 0;
  let declared = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) if (call.id !== '') declared.add(call.id);
    } else if (message.role === 'tool' && !isDeclared(message, declared)) {
      start = index + 1;
      declared = new Set();
    }
  }
  return start;
}

function isDeclared(result: Message, declared: ReadonlySet<string>): boolean {
  return result.toolCallId !== undefined && declared.has(result.toolCallId);
}
