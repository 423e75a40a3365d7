import type { Message } from './message.js';

/**
 * nanobot's `find_legal_message_start`: the index from which `messages` has no illegal tool-result
 * prefix. Scanning forward with the set of ids declared by assistants seen so far, a tool result
 * whose id was not declared (or is missing) moves the start just after it and resets the set.
 * Returns 0 when the list is already legal (and `messages.length` when every message is such a result).
 * With `from`, it scans `messages` from that index on as if the list started there, and returns an
 * index of `messages` (`from` when that part is legal), so a caller need not copy the part.
 *
 * A result that answers the last assistant before it (the usual case) is declared without a set; the
 * set of every id declared since the start is built only for a result that does not, so a legal
 * history costs one pass and no allocation.
 */
export function findLegalMessageStart(messages: readonly Message[], from = 0): number {
  let start = from;
  let owner: Message | undefined;
  /** The ids declared in `[start, index)`, once a result needed them. */
  let declared: Set<string> | undefined;
  for (let index = from; index < messages.length; index += 1) {
    const message = messages[index] as Message; // index is in range
    if (message.role === 'assistant') {
      owner = message;
      if (declared !== undefined) addDeclared(declared, message);
    } else if (message.role === 'tool' && !declares(owner, message.toolCallId)) {
      declared ??= declaredIn(messages, { from: start, to: index });
      if (message.toolCallId === undefined || !declared.has(message.toolCallId)) {
        start = index + 1;
        owner = undefined;
        declared = undefined;
      }
    }
  }
  return start;
}

/** True when `assistant` declares the (non-empty) id `id`. */
function declares(assistant: Message | undefined, id: string | undefined): boolean {
  if (assistant === undefined || id === undefined || id === '') return false;
  for (const call of assistant.toolCalls ?? []) if (call.id === id) return true;
  return false;
}

function declaredIn(
  messages: readonly Message[],
  range: { readonly from: number; readonly to: number },
): Set<string> {
  const declared = new Set<string>();
  for (let index = range.from; index < range.to; index += 1) {
    const message = messages[index] as Message; // index is in range
    if (message.role === 'assistant') addDeclared(declared, message);
  }
  return declared;
}

function addDeclared(declared: Set<string>, assistant: Message): void {
  for (const call of assistant.toolCalls ?? []) if (call.id !== '') declared.add(call.id);
}
