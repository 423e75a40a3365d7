import type { Message } from '../core/message.js';
import type { AnthropicSystem } from './anthropic-types.js';

/** Where one ctxloom message came from in an Anthropic request. */
export type AnthropicOrigin = {
  /** The Anthropic message it was read from (or, for a system message, the request's `system`). */
  readonly source: object;
  /** The ctxloom message as read: compared by identity on the way back. */
  readonly message: Message;
  /** The blocks it was read from (a string content counts as one text block). */
  readonly blocks: readonly object[];
};

/**
 * What `fromAnthropicMessages` remembers of the request it read, so that `toAnthropicMessages`
 * (given these `origins`) gives back the same object for every message ctxloom did not change, and
 * keeps every block and field it does not own (thinking signatures, `cache_control`, citations,
 * server tool blocks) on the ones it changed.
 */
export type AnthropicOrigins = {
  /** By ctxloom message id. */
  readonly messages: ReadonlyMap<string, AnthropicOrigin>;
  /** ctxloom content parts and tool calls → the block they were read from. */
  readonly parts: ReadonlyMap<object, object>;
  /** Every Anthropic message read → all its blocks, in order. */
  readonly blocks: ReadonlyMap<object, readonly object[]>;
  /** The request's `system` as given. */
  readonly system: AnthropicSystem | undefined;
};
