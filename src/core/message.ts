import type { JsonObject } from './json.js';

/** The four roles a chat message can have. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/**
 * Options a provider attaches to a message, part or tool call, keyed by provider name, exactly as the
 * AI SDK shapes `providerOptions` (`{ anthropic: { cacheControl: { type: 'ephemeral' } } }`,
 * `{ openai: { itemId: 'msg_1' } }`). ctxloom keeps them as they are and gives them back.
 */
export type ProviderOptions = { readonly [provider: string]: JsonObject };

/**
 * The fields of a native wire format that ctxloom has no field for, keyed by the format that wrote
 * them (`anthropic`, `openai-chat`, `openai-responses`, `ai-sdk`): `{ anthropic: { cache_control:
 * { type: 'ephemeral' } } }`. That format's adapter writes them back; other formats leave them out.
 * This is how a conversion is lossless without a side table: what is not modelled travels in the
 * data, through every store and process.
 */
export type NativeFields = { readonly [format: string]: JsonObject };

/** What every part, tool call and message may carry beside its own fields. */
type Carries = {
  /** Provider options, as the AI SDK shapes them. */
  readonly providerOptions?: ProviderOptions;
  /** Native fields ctxloom has no field for, by format. */
  readonly native?: NativeFields;
};

/** A run of text inside structured content. */
export type TextPart = { readonly type: 'text'; readonly text: string } & Carries;

/**
 * An image, by URL or `data:` URL. `path` records the local file it came from, so persistence can
 * store a breadcrumb (`[image: path]`) instead of base64.
 */
export type ImagePart = {
  readonly type: 'image';
  readonly url: string;
  readonly mediaType?: string;
  readonly path?: string;
} & Carries;

/** A non-image file, by URL or `data:` URL. */
export type FilePart = {
  readonly type: 'file';
  readonly url: string;
  readonly mediaType: string;
  readonly filename?: string;
  readonly path?: string;
} & Carries;

/**
 * A block of the model's reasoning, in the order the provider returned it, with whatever the provider
 * needs to accept it again: Anthropic's `signature` on signed thinking, the `redactedData` of redacted
 * thinking, OpenAI's `encryptedContent` of a reasoning item. `provider` names whose signature or
 * payload it is (`anthropic`, `openai`): a signature is valid only for its provider, so adapters of
 * other providers leave the part out with a warning. Every stage treats it as atomic: it is moved or
 * dropped whole, never edited.
 *
 * Counted as sent: `text` is counted as text; an encrypted or redacted payload by the stated rule of
 * {@link opaquePayloadTokens} (its decoded bytes / 4), never by its base64 length as text; a
 * signature is not counted (providers verify it, they do not tokenise it).
 */
export type ReasoningPart = {
  readonly type: 'reasoning';
  /** The reasoning text (`''` for redacted or encrypted-only reasoning). */
  readonly text: string;
  /** The provider whose signature or payload this is. */
  readonly provider?: string;
  /** Anthropic: the signature of signed thinking, sent back as it is. */
  readonly signature?: string;
  /** Anthropic: the encrypted `data` of redacted thinking. */
  readonly redactedData?: string;
  /** OpenAI: the `encrypted_content` of a reasoning item. */
  readonly encryptedContent?: string;
} & Carries;

/**
 * Something a provider returned that ctxloom does not model and must send back byte for byte: an
 * Anthropic `compaction` block, `server_tool_use` and `web_search_tool_result`, an OpenAI Responses
 * `compaction` item, a web search call, an AI SDK approval part. `value` is the native object exactly
 * as received, in `format`'s wire shape; only that format's adapter sends it, others leave it out with
 * a warning. Every stage treats it as atomic: moved or dropped whole, never edited.
 *
 * Counted by the stated rule of {@link opaquePayloadTokens}: its readable text fields as text,
 * encrypted payloads by their decoded bytes / 4.
 */
export type ProviderPart = {
  readonly type: 'provider';
  /** The wire format `value` is in: `anthropic`, `openai-responses`, `openai-chat`, `ai-sdk`. */
  readonly format: string;
  /** What it is, as the format names it (`value.type`): `compaction`, `server_tool_use`, … */
  readonly kind: string;
  /** The native object, as received; never edited. */
  readonly value: JsonObject;
};

/** One part of structured message content, discriminated on `type`. */
export type ContentPart = TextPart | ImagePart | FilePart | ReasoningPart | ProviderPart;

/** Message content: plain text or an ordered list of parts. */
export type Content = string | readonly ContentPart[];

/**
 * One tool call made by the assistant. `arguments` is the raw JSON text, as the model produced it,
 * so a malformed call can be represented (and repaired) rather than lost.
 */
export type ToolCall = {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
} & Carries;

/**
 * What kind of result a tool message holds, as the AI SDK types tool outputs. Absent means `'text'`.
 * The message's `content` is always what is counted and governed: the JSON text for `json` and
 * `error-json` (adapters parse it back, and write text when a stage changed it into something that no
 * longer parses), the reason for `execution-denied`, text, image and file parts for `content`.
 */
export type ToolOutputType = 'text' | 'json' | 'error-text' | 'error-json' | 'execution-denied' | 'content';

/** Free JSON-serialisable data attached to a message. */
export type Metadata = { readonly [key: string]: unknown };

/**
 * A chat message: plain readonly, JSON-serialisable data, never a class instance.
 *
 * - `id` is stable across builds and used for diffs and event tracking.
 * - `toolCalls` only on assistant messages; `toolCallId` (and usually `name`) only on tool messages.
 * - `reasoning` holds reasoning text a provider returns beside the content (`reasoning_content`);
 *   reasoning blocks that must be sent back (signed, redacted, encrypted) are {@link ReasoningPart}s
 *   in `content`, in the order the provider returned them.
 * - `output` (tool messages) types the result beyond its text (see {@link ToolOutputType}).
 * - `providerOptions` and `native` carry what a provider attached that ctxloom does not model.
 * - `metadata.section` names the provider that produced the message in a build.
 */
export type Message = {
  readonly id: string;
  readonly role: Role;
  readonly content: Content;
  readonly name?: string;
  readonly toolCallId?: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly reasoning?: string;
  readonly output?: ToolOutputType;
  readonly metadata?: Metadata;
} & Carries;

/** The version of the message format: 2 added reasoning and provider parts, `output`, `providerOptions` and `native`. */
export const MESSAGE_FORMAT_VERSION = 2;

/** The metadata key under which the builder records the producing provider's id. */
export const SECTION_KEY = 'section';

/** Reads the section (producing provider id) of a message, if any. */
export function sectionOf(message: Message): string | undefined {
  const value = message.metadata?.[SECTION_KEY];
  return typeof value === 'string' ? value : undefined;
}

/** Returns a copy of `message` with `metadata[key]` set; the input is left unchanged. */
export function withMetadata(message: Message, patch: Metadata): Message {
  return { ...message, metadata: { ...message.metadata, ...patch } };
}
