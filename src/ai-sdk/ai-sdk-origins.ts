import type { Message } from '../core/message.js';
import type { AiSdkMessageLike, AiSdkPartLike } from './ai-sdk-message-like.js';

/** Where one ctxloom message came from. */
export type AiSdkOrigin = {
  /** The AI SDK message it was read from. */
  readonly source: AiSdkMessageLike;
  /** The ctxloom message as read (compared by identity on the way back: unchanged means the same object). */
  readonly message: Message;
  /** For a tool message: the `tool-result` part it was read from. */
  readonly part?: AiSdkPartLike;
};

/**
 * What `fromAiSdkMessages` remembers of the AI SDK messages it read, for `toAiSdkMessages` to give
 * back the original objects: by ctxloom message id, and by ctxloom part and tool call object.
 */
export type AiSdkOrigins = {
  readonly messages: ReadonlyMap<string, AiSdkOrigin>;
  /** ctxloom content parts and tool calls → the AI SDK part they were read from. */
  readonly parts: ReadonlyMap<object, AiSdkPartLike>;
};
