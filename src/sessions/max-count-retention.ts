import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { groupTransactions } from '../core/transactions.js';
import type { RetentionPolicy } from './retention-policy.js';

/**
 * Keeps the newest `maxMessages` messages on write. It never splits a tool transaction (an assistant
 * message with tool calls and its results): a transaction that would straddle the limit is dropped
 * whole, so fewer than `maxMessages` may remain; the newest transaction is always kept, even when it
 * alone is longer than the limit.
 */
export class MaxCountRetention implements RetentionPolicy {
  readonly specificationVersion = 'v1';
  readonly id: string;
  /** The limit. */
  readonly maxMessages: number;

  constructor(maxMessages: number) {
    if (!Number.isInteger(maxMessages) || maxMessages < 1) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `MaxCountRetention needs a whole number of messages ≥ 1, got ${maxMessages}.`,
      });
    }
    this.maxMessages = maxMessages;
    this.id = `max-count:${maxMessages}`;
  }

  apply(messages: readonly Message[]): readonly Message[] {
    if (messages.length <= this.maxMessages) return messages;
    const units = groupTransactions(messages);
    let start = messages.length;
    for (let index = units.length - 1; index >= 0; index -= 1) {
      const unit = units[index];
      if (unit === undefined) break;
      const isNewest = index === units.length - 1;
      if (!isNewest && messages.length - unit.start > this.maxMessages) break;
      start = unit.start;
    }
    return start === 0 ? messages : messages.slice(start);
  }
}
