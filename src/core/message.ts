/** The four roles a chat message can have. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** A run of text inside structured content. */
export type TextPart = { readonly type: 'text'; readonly text: string };

/**
 * An image, by URL or `data:` URL. `path` records the local file it came from, so persistence can
 * store a breadcrumb (`[image: path]`) instead of base64.
 */
export type ImagePart = {
  readonly type: 'image';
  readonly url: string;
  readonly mediaType?: string;
  readonly path?: string;
};

/** A non-image file, by URL or `data:` URL. */
export type FilePart = {
  readonly type: 'file';
  readonly url: string;
  readonly mediaType: string;
  readonly filename?: string;
  readonly path?: string;
};

/** One part of structured message content, discriminated on `type`. */
export type ContentPart = TextPart | ImagePart | FilePart;

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
};

/** Free JSON-serialisable data attached to a message. */
export type Metadata = { readonly [key: string]: unknown };

/**
 * A chat message: plain readonly, JSON-serialisable data, never a class instance.
 *
 * - `id` is stable across builds and used for diffs and event tracking.
 * - `toolCalls` only on assistant messages; `toolCallId` (and usually `name`) only on tool messages.
 * - `reasoning` holds the model's reasoning text when a provider returns one.
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
  readonly metadata?: Metadata;
};

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
