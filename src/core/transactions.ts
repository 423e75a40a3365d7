import type { Message } from './message.js';

/**
 * A unit of trimming: one message, or a transaction (an assistant message with tool calls followed by
 * the tool results that answer it). `start` is the index of the first message in the source list.
 */
export type MessageUnit = {
  readonly kind: 'single' | 'transaction';
  readonly start: number;
  readonly messages: readonly Message[];
};

/**
 * Groups messages into units: an assistant message with tool calls takes every directly following
 * tool message whose `toolCallId` it declared; every other message is its own unit. Every trimming
 * decision is made on units, so a call is never separated from its results.
 */
export function groupTransactions(messages: readonly Message[]): readonly MessageUnit[] {
  const units: MessageUnit[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as Message;
    const declared = message.role === 'assistant' ? message.toolCalls : undefined;
    if (declared === undefined || declared.length === 0) {
      units.push({ kind: 'single', start: index, messages: [message] });
      index += 1;
      continue;
    }
    const ids = new Set(declared.map((call) => call.id));
    let end = index + 1;
    while (end < messages.length) {
      const next = messages[end] as Message;
      if (next.role !== 'tool' || next.toolCallId === undefined || !ids.has(next.toolCallId)) break;
      end += 1;
    }
    units.push({ kind: 'transaction', start: index, messages: messages.slice(index, end) });
    index = end;
  }
  return units;
}
