import { ContextError } from '../core/errors.js';
import { TextTokenCounter } from './text-token-counter.js';
import type { MessageCostOptions } from './token-counter.js';

/** Options for {@link SimpleTokenCounter}. */
export type SimpleTokenCounterOptions = MessageCostOptions & {
  /** Characters per token. @default 4 */
  readonly charsPerToken?: number;
};

/** The zero-dependency estimate: `ceil(characters ÷ charsPerToken)` (UTF-16 code units). */
export class SimpleTokenCounter extends TextTokenCounter {
  readonly id: string;
  readonly kind = 'estimate' as const;
  readonly charsPerToken: number;

  constructor(options: SimpleTokenCounterOptions = {}) {
    super(options);
    this.charsPerToken = options.charsPerToken ?? 4;
    if (!(this.charsPerToken > 0)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `charsPerToken must be a number > 0, got ${this.charsPerToken}.`,
      });
    }
    this.id = this.charsPerToken === 4 ? 'simple' : `simple:${this.charsPerToken}`;
  }

  countText(text: string): number {
    return Math.ceil(text.length / this.charsPerToken);
  }
}
