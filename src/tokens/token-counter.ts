import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';

/**
 * Counts tokens. Every counter in ctxloom implements this contract; any object with these members
 * takes part.
 *
 * Conventions all built-in counters follow:
 * - `countText('')` is 0 and no count is negative;
 * - `countMessage` = tokens of the message's text (content text, name, tool call id, tool calls as
 *   `name` + raw `arguments`, reasoning, joined by `"\n"`) + `messageOverheadTokens` (4 by default,
 *   the role and framing tokens chat formats add) + `imageTokens` per image or file part (a flat
 *   cost: the base64 length of a data URL is never counted);
 * - `countMessages` is the sum of `countMessage`;
 * - `countTools` counts the JSON of the whole tool list (0 for an empty list).
 */
export interface TokenCounter {
  readonly specificationVersion: 'v1';
  /** A stable id such as `simple`, `tiktoken:o200k_base`, `hf:qwen3`. */
  readonly id: string;
  /** True when the counter caches its results; the builder then does not wrap it again. */
  readonly isCached?: boolean;
  /** Tokens of a plain text. */
  countText(text: string): number;
  /** Tokens of one message, per-message overhead and flat image costs included. */
  countMessage(message: Message): number;
  /** Tokens of a list of messages (the sum of {@link TokenCounter.countMessage}). */
  countMessages(messages: readonly Message[]): number;
  /** Tokens of the tool definitions sent with a request. */
  countTools(tools: readonly ToolDefinition[]): number;
}

/** Per-message accounting shared by the built-in counters. */
export type MessageCostOptions = {
  /** Tokens added per message for role and framing. @default 4 */
  readonly messageOverheadTokens?: number;
  /** Flat cost of one image or file part. @default 765 (an OpenAI high-detail 1024×1024 image) */
  readonly imageTokens?: number;
};

/** Defaults of {@link MessageCostOptions}. */
export const DEFAULT_MESSAGE_COST = Object.freeze({ messageOverheadTokens: 4, imageTokens: 765 });
