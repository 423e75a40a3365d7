import type { Message } from '../core/message.js';
import { providerPartText } from '../core/opaque-payload.js';

/**
 * The text of a message that counters encode: content text (with the text of reasoning parts and
 * the readable text of provider parts), name, tool call id, tool calls (`name` then raw `arguments`)
 * and reasoning, joined by `"\n"`. Image and file parts are not text: counters add a flat cost per
 * part instead (see {@link mediaPartCount}); encrypted payloads are counted by `opaquePayloadTokens`.
 */
export function messageText(message: Message): string {
  const parts = contentTexts(message);
  for (const field of [message.name, message.toolCallId])
    if (field !== undefined && field !== '') parts.push(field);
  for (const call of message.toolCalls ?? []) parts.push(call.name, call.arguments);
  if (message.reasoning !== undefined && message.reasoning !== '') parts.push(message.reasoning);
  return parts.join('\n');
}

/** The number of image and file parts of a message. */
export function mediaPartCount(message: Message): number {
  if (typeof message.content === 'string') return 0;
  let count = 0;
  for (const part of message.content) if (part.type === 'image' || part.type === 'file') count += 1;
  return count;
}

function contentTexts(message: Message): string[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [message.content];
  const texts: string[] = [];
  for (const part of message.content) {
    const text =
      part.type === 'text' || part.type === 'reasoning'
        ? part.text
        : part.type === 'provider'
          ? providerPartText(part)
          : '';
    if (text !== '') texts.push(text);
  }
  return texts;
}
