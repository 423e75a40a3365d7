import type { Message } from '../core/message.js';

/** Where one ctxloom message came from: the foreign message and the ctxloom message read from it. */
export type ForeignOrigin<TSource> = {
  /** The foreign message (or the first of the items) it was read from. */
  readonly source: TSource;
  /** The ctxloom message as read: compared by identity on the way back (unchanged means the same object). */
  readonly message: Message;
};

/**
 * What a `from*` adapter remembers of the foreign messages it read, so that the matching `to*`
 * adapter (given these `origins`) returns the same object for every message ctxloom did not change,
 * and keeps every field ctxloom does not own on the ones it changed.
 */
export type ForeignOrigins<TSource> = {
  /** By ctxloom message id. */
  readonly messages: ReadonlyMap<string, ForeignOrigin<TSource>>;
  /** ctxloom content parts and tool calls → the foreign part or call they were read from. */
  readonly parts: ReadonlyMap<object, object>;
};

/** The origin of a message when it was read by the matching `from*` adapter with the same role. */
export function foreignOriginOf<TSource>(
  message: Message,
  origins: ForeignOrigins<TSource> | undefined,
): ForeignOrigin<TSource> | undefined {
  const origin = origins?.messages.get(message.id);
  return origin?.message.role === message.role ? origin : undefined;
}
