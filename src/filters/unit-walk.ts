import type { Message } from '../core/message.js';

/**
 * Lazy unit boundaries, with exactly the rules of `groupTransactions` (an assistant message with
 * tool calls takes the directly following tool messages whose ids it declared; every other message
 * is a unit of its own) but found one unit at a time from either end, so a budget walk that stops
 * early touches only the units it keeps: O(kept), not O(n).
 * @internal
 */
export type UnitBounds = { readonly start: number; readonly end: number };

/** The exclusive end of the unit that starts at `start` (units never reach past `limit`). @internal */
export function unitEndAfter(
  messages: readonly Message[],
  { start, limit }: { readonly start: number; readonly limit: number },
): number {
  const first = messages[start] as Message;
  const calls = first.role === 'assistant' ? first.toolCalls : undefined;
  if (calls === undefined || calls.length === 0) return start + 1;
  let end = start + 1;
  while (end < limit && isClaimed(messages[end] as Message, calls)) end += 1;
  return end;
}

/** The start of the unit that ends just before `end` (units never reach below `floor`). @internal */
export function unitStartBefore(
  messages: readonly Message[],
  { end, floor }: { readonly end: number; readonly floor: number },
): number {
  const last = end - 1;
  if ((messages[last] as Message).role !== 'tool') return last;
  let runStart = last;
  while (runStart > floor && (messages[runStart - 1] as Message).role === 'tool') runStart -= 1;
  const owner = runStart > floor ? (messages[runStart - 1] as Message) : undefined;
  const calls = owner?.role === 'assistant' ? owner.toolCalls : undefined;
  if (calls === undefined || calls.length === 0) return last;
  let claimedEnd = runStart;
  while (claimedEnd < end && isClaimed(messages[claimedEnd] as Message, calls)) claimedEnd += 1;
  return claimedEnd === end ? runStart - 1 : last;
}

function isClaimed(message: Message, calls: NonNullable<Message['toolCalls']>): boolean {
  if (message.role !== 'tool' || message.toolCallId === undefined) return false;
  for (const call of calls) if (call.id === message.toolCallId) return true;
  return false;
}
