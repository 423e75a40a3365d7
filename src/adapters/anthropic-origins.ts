import type { Message } from '../core/message.js';
import type { AnthropicSystem } from './anthropic-types.js';

/** Where one ctxloom message came from in an Anthropic request. */
export type AnthropicOrigin = {
  /** The Anthropic message it was read from (or, for a system message, the request's `system`). */
  readonly source: object;
  /** The ctxloom message as read: compared by identity on the way back. */
  readonly message: Message;
};

/**
 * What `fromAnthropicMessages` remembers of the request it read: an optimisation only. Given these
 * `origins`, `toAnthropicMessages` returns the caller's own object for a turn made of exactly the
 * unchanged messages read from it; without them it builds an equal object from the messages alone
 * (their `native.anthropic` fields and provider parts), so nothing depends on them.
 */
export type AnthropicOrigins = {
  /** By ctxloom message id. */
  readonly messages: ReadonlyMap<string, AnthropicOrigin>;
  /** Every Anthropic message read → how many ctxloom messages were read from it. */
  readonly sizes: ReadonlyMap<object, number>;
  /** The request's `system` as given. */
  readonly system: AnthropicSystem | undefined;
};
