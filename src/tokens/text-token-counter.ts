import type { Message } from '../core/message.js';
import { opaquePayloadTokens } from '../core/opaque-payload.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { mediaPartCount, messageText } from './message-text.js';
import { DEFAULT_MESSAGE_COST, type MessageCostOptions, type TokenCounter } from './token-counter.js';

/**
 * Shared implementation of {@link TokenCounter} for counters that only know how to count text:
 * subclasses implement `countText`; messages, lists and tools follow the documented conventions.
 * @internal
 */
export abstract class TextTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1' as const;
  abstract readonly id: string;
  readonly messageOverheadTokens: number;
  readonly imageTokens: number;

  constructor(options: MessageCostOptions = {}) {
    this.messageOverheadTokens = options.messageOverheadTokens ?? DEFAULT_MESSAGE_COST.messageOverheadTokens;
    this.imageTokens = options.imageTokens ?? DEFAULT_MESSAGE_COST.imageTokens;
  }

  abstract countText(text: string): number;

  countMessage(message: Message): number {
    return (
      this.countText(messageText(message)) +
      this.messageOverheadTokens +
      mediaPartCount(message) * this.imageTokens +
      opaquePayloadTokens(message)
    );
  }

  countMessages(messages: readonly Message[]): number {
    let total = 0;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  countTools(tools: readonly ToolDefinition[]): number {
    return tools.length === 0 ? 0 : this.countText(JSON.stringify(tools));
  }
}
