import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { TokenCounter } from './token-counter.js';

/** Options for {@link ScaledTokenCounter}. */
export type ScaledTokenCounterOptions = {
  /** What every count is multiplied by (rounded up); above 1 counts conservatively. */
  readonly factor: number;
};

/**
 * Wraps a counter and multiplies every count by a fixed factor, rounding up: a stated margin for a
 * model whose tokenizer the wrapped counter does not know (see `tokenCounterForModel`). Its id names
 * the factor and the wrapped counter, e.g. `scaled(1.25):estimate:o200k`; its counts are estimates.
 * @throws ContextError `INVALID_OPTIONS` for a factor that is not a finite number above 0.
 * @example const counter = new ScaledTokenCounter(new EstimatingTokenCounter(), { factor: 1.25 });
 */
export class ScaledTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly kind = 'estimate' as const;
  readonly factor: number;
  readonly #inner: TokenCounter;

  constructor(inner: TokenCounter, options: ScaledTokenCounterOptions) {
    if (!(Number.isFinite(options.factor) && options.factor > 0)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `ScaledTokenCounter needs a finite factor above 0 (got ${options.factor}); e.g. { factor: 1.25 }.`,
      });
    }
    this.#inner = inner;
    this.factor = options.factor;
    this.id = `scaled(${options.factor}):${inner.id}`;
  }

  countText(text: string): number {
    return this.#scale(this.#inner.countText(text));
  }

  countMessage(message: Message): number {
    return this.#scale(this.#inner.countMessage(message));
  }

  countMessages(messages: readonly Message[]): number {
    return messages.reduce((sum, message) => sum + this.countMessage(message), 0);
  }

  countTools(tools: readonly ToolDefinition[]): number {
    return this.#scale(this.#inner.countTools(tools));
  }

  #scale(count: number): number {
    return Math.ceil(count * this.factor);
  }
}
