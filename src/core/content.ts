import type { Content, ContentPart, Message } from './message.js';

/**
 * The text of some content: a string as is, or the text parts joined by `"\n"` (non-text parts are
 * left out).
 */
export function textOf(content: Content): string {
  if (typeof content === 'string') return content;
  let text = '';
  let first = true;
  for (const part of content) {
    if (part.type !== 'text') continue;
    text = first ? part.text : `${text}\n${part.text}`;
    first = false;
  }
  return text;
}

/** The content as a list of parts (a string becomes one text part; `''` becomes none). */
export function partsOf(content: Content): readonly ContentPart[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/** True when the content carries nothing: `''`, whitespace only, or no non-blank part. */
export function isBlankContent(content: Content): boolean {
  if (typeof content === 'string') return content.trim() === '';
  return content.every((part) => part.type === 'text' && part.text.trim() === '');
}

/** True when the message is an assistant message declaring at least one tool call. */
export function hasToolCalls(message: Message): boolean {
  return message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0;
}
