// Arrays are mutable (`T[]`, not `readonly T[]`) so that the output is assignable to the
// `@anthropic-ai/sdk` `MessageCreateParams` without a cast (a readonly array is not assignable to a
// mutable one).

/** An Anthropic prompt-cache breakpoint (`cache_control`). */
export type AnthropicCacheControl = { readonly type: 'ephemeral'; readonly ttl?: '5m' | '1h' };

type Cacheable = { readonly cache_control?: AnthropicCacheControl };

/** A text block of an Anthropic message or system prompt. */
export type AnthropicTextBlock = { readonly type: 'text'; readonly text: string } & Cacheable;

/** The image types the Messages API accepts as base64. */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** An image block: base64 data or a URL. */
export type AnthropicImageBlock = {
  readonly type: 'image';
  readonly source:
    | { readonly type: 'base64'; readonly media_type: AnthropicImageMediaType; readonly data: string }
    | { readonly type: 'url'; readonly url: string };
} & Cacheable;

/** A document block: a PDF (base64 or URL) or plain text. */
export type AnthropicDocumentBlock = {
  readonly type: 'document';
  readonly source:
    | { readonly type: 'base64'; readonly media_type: 'application/pdf'; readonly data: string }
    | { readonly type: 'text'; readonly media_type: 'text/plain'; readonly data: string }
    | { readonly type: 'url'; readonly url: string };
  readonly title?: string;
} & Cacheable;

/** Extended thinking, sent back with the signature the model returned. */
export type AnthropicThinkingBlock = {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature: string;
};

/** Encrypted thinking, sent back as it was returned. */
export type AnthropicRedactedThinkingBlock = { readonly type: 'redacted_thinking'; readonly data: string };

/** A tool call made by the assistant. */
export type AnthropicToolUseBlock = {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
} & Cacheable;

/** The result of a tool call, sent first in the next user message; `is_error` for a failed call. */
export type AnthropicToolResultBlock = {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[];
  readonly is_error?: boolean;
} & Cacheable;

/** Any content block of a request message. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;

/** One message of an Anthropic Messages API request. */
export type AnthropicMessage =
  | { readonly role: 'user'; readonly content: string | AnthropicContentBlock[] }
  | { readonly role: 'assistant'; readonly content: string | AnthropicContentBlock[] };

/** The `system` of a request: a string, or text blocks (which can carry cache breakpoints). */
export type AnthropicSystem = string | AnthropicTextBlock[];

/** A client tool definition of a request. */
export type AnthropicTool = {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
} & Cacheable;
