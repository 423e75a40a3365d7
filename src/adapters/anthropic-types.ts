/** A text block of an Anthropic message. */
export type AnthropicTextBlock = { readonly type: 'text'; readonly text: string };

/** An image block: base64 data or a URL. */
export type AnthropicImageBlock = {
  readonly type: 'image';
  readonly source:
    | { readonly type: 'base64'; readonly media_type: string; readonly data: string }
    | { readonly type: 'url'; readonly url: string };
};

/** A PDF document block. */
export type AnthropicDocumentBlock = {
  readonly type: 'document';
  readonly source:
    | { readonly type: 'base64'; readonly media_type: 'application/pdf'; readonly data: string }
    | { readonly type: 'url'; readonly url: string };
};

/** A tool call made by the assistant. */
export type AnthropicToolUseBlock = {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
};

/** The result of a tool call, sent in the next user message. */
export type AnthropicToolResultBlock = {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string | readonly (AnthropicTextBlock | AnthropicImageBlock)[];
};

/** Any content block of a request message. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;

/** One message of an Anthropic Messages API request. */
export type AnthropicMessage = {
  readonly role: 'user' | 'assistant';
  readonly content: readonly AnthropicContentBlock[];
};
