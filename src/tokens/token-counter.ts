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
 *   cost: the base64 length of a data URL is never counted) + the encrypted payloads of reasoning
 *   and provider parts by `opaquePayloadTokens` (decoded bytes / 4; signatures cost nothing);
 * - `countMessages` is the sum of `countMessage`;
 * - `countTools` counts the JSON of the whole tool list (0 for an empty list).
 */
export interface TokenCounter {
  readonly specificationVersion: 'v1';
  /** A stable id such as `simple`, `tiktoken:o200k_base`, `hf:qwen3`. */
  readonly id: string;
  /** True when the counter caches its results; the builder then does not wrap it again. */
  readonly isCached?: boolean;
  /**
   * Whether the counts are the model tokenizer's own (`'exact'`: tiktoken, a `tokenizer.json`) or an
   * approximation (`'estimate'`: the simple, byte and calibrated estimators). Traces report it next
   * to the counter's id. Optional (added in 0.1, backward compatible): a counter that does not say is
   * treated as an estimate.
   */
  readonly kind?: TokenCountKind;
  /**
   * For an estimate of a tokenizer ctxloom can also count exactly: loads that exact counter (once).
   * A budget check that would refuse a request on the estimate counts it exactly first and refuses
   * only when the exact count is over. Optional: a counter without it is never second-guessed.
   */
  readonly loadExactCounter?: () => Promise<TokenCounter>;
  /** Tokens of a plain text. */
  countText(text: string): number;
  /** Tokens of one message, per-message overhead and flat image costs included. */
  countMessage(message: Message): number;
  /** Tokens of a list of messages (the sum of {@link TokenCounter.countMessage}). */
  countMessages(messages: readonly Message[]): number;
  /** Tokens of the tool definitions sent with a request. */
  countTools(tools: readonly ToolDefinition[]): number;
}

/** How a {@link TokenCounter}'s numbers were obtained: the model's tokenizer, or an approximation. */
export type TokenCountKind = 'exact' | 'estimate';

/** Per-message accounting shared by the built-in counters. */
export type MessageCostOptions = {
  /** Tokens added per message for role and framing. @default 4 */
  readonly messageOverheadTokens?: number;
  /** Flat cost of one image or file part. @default 765 (an OpenAI high-detail 1024×1024 image) */
  readonly imageTokens?: number;
};

/** Defaults of {@link MessageCostOptions}. */
export const DEFAULT_MESSAGE_COST = Object.freeze({ messageOverheadTokens: 4, imageTokens: 765 });
