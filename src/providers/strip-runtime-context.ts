import type { ContentPart, Message } from '../core/message.js';
import { RUNTIME_CONTEXT_KEY } from './runtime-context.js';

/**
 * The public view of a user message: removes the runtime context the builder appended, exactly.
 * It strips only when the marker in `metadata.runtimeContext` matches the content (the string ends
 * with the recorded suffix, or the part list ends with the recorded block texts); otherwise the
 * message comes back unchanged, content and marker included, so nothing the user wrote is lost.
 */
export function stripRuntimeContext(message: Message): Message {
  const marker = message.metadata?.[RUNTIME_CONTEXT_KEY];
  if (typeof marker !== 'object' || marker === null) return message;
  const suffix: unknown = Reflect.get(marker, 'suffix');
  const blocks: unknown = Reflect.get(marker, 'blocks');
  if (typeof suffix === 'string' && typeof message.content === 'string') {
    if (!message.content.endsWith(suffix)) return message;
    return withoutMarker(message, message.content.slice(0, message.content.length - suffix.length));
  }
  if (isStringList(blocks) && typeof message.content !== 'string') {
    const kept = stripTrailingBlocks(message.content, blocks);
    return kept === undefined ? message : withoutMarker(message, kept);
  }
  return message;
}

function stripTrailingBlocks(
  content: readonly ContentPart[],
  blocks: readonly string[],
): readonly ContentPart[] | undefined {
  const start = content.length - blocks.length;
  if (start < 0) return undefined;
  for (const [index, text] of blocks.entries()) {
    const part = content[start + index];
    if (part?.type !== 'text' || part.text !== text) return undefined;
  }
  return content.slice(0, start);
}

function withoutMarker(message: Message, content: Message['content']): Message {
  const { [RUNTIME_CONTEXT_KEY]: _removed, ...metadata } = message.metadata ?? {};
  const { metadata: _old, ...rest } = message;
  return Object.keys(metadata).length === 0 ? { ...rest, content } : { ...rest, content, metadata };
}

function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
