import type { Content, ContentPart, Message } from '../core/message.js';
import { hasNanobotFlag, nanobotField } from './nanobot-fields.js';
import { RUNTIME_CONTEXT_KEY } from './nanobot-message.js';

const MESSAGE_TIME_LINE = /^\[Message Time: [^\]\n]*\]\s*\n?/;
const IMAGE_BREADCRUMB_LINE = /^\[image: [/~][^\n]*\]$/;
const TOOL_ECHO_LINE = /^\s*(?:generate_image|message)\(.*\)\s*$/;

/**
 * One stored message as replay shows it (§3.4 step 6), or `undefined` when replay skips it:
 * `_command` turns are skipped; with `includeRuntimeContext: false` the exact runtime-context suffix
 * (or trailing blocks) recorded in `metadata.runtimeContext` is removed; assistant text loses a leading
 * `[Message Time: …]` line, `[image: /…]` lines and `generate_image(…)`/`message(…)` echoes; user text
 * gets `[image: path]` breadcrumbs for `media`; blank assistant text without tool calls or reasoning
 * is dropped. Only the whitelisted fields survive (role, content, toolCalls, toolCallId, name,
 * reasoning; `thinkingBlocks` and, when kept, the runtime-context marker in metadata).
 */
export function replayMessage(message: Message, includeRuntimeContext: boolean): Message | undefined {
  if (hasNanobotFlag(message, '_command')) return undefined;
  const { content, marker } = visibleContent(message, includeRuntimeContext);
  const thinking = nanobotField(message, 'thinking_blocks');
  const hasThinking = Array.isArray(thinking) && thinking.length > 0;
  const keepsWhenBlank =
    (message.toolCalls?.length ?? 0) > 0 || (message.reasoning ?? '') !== '' || hasThinking;
  if (
    message.role === 'assistant' &&
    typeof content === 'string' &&
    content.trim() === '' &&
    !keepsWhenBlank
  ) {
    return undefined;
  }
  const metadata = {
    ...(marker === undefined ? {} : { [RUNTIME_CONTEXT_KEY]: marker }),
    ...(hasThinking ? { thinkingBlocks: thinking } : {}),
  };
  return {
    id: message.id,
    role: message.role,
    content,
    ...(message.toolCalls === undefined ? {} : { toolCalls: message.toolCalls }),
    ...(message.toolCallId === undefined ? {} : { toolCallId: message.toolCallId }),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.reasoning === undefined ? {} : { reasoning: message.reasoning }),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** The content replay shows, and the runtime-context marker it still carries (none in the public view). */
function visibleContent(
  message: Message,
  includeRuntimeContext: boolean,
): { content: Content; marker: unknown } {
  const recorded = message.metadata?.[RUNTIME_CONTEXT_KEY];
  let content: Content = message.content;
  if (!includeRuntimeContext && recorded !== undefined)
    content = stripRuntimeContextExactly(content, recorded) ?? content;
  if (typeof content === 'string' && message.role === 'assistant') content = sanitizeAssistantText(content);
  if (typeof content === 'string' && message.role === 'user')
    content = withMediaBreadcrumbs(content, message);
  return { content, marker: includeRuntimeContext ? recorded : undefined };
}

/** Removes the recorded runtime context only when it matches exactly; `undefined` when it does not. */
export function stripRuntimeContextExactly(content: Content, marker: unknown): Content | undefined {
  if (typeof marker !== 'object' || marker === null) return undefined;
  const suffix: unknown = Reflect.get(marker, 'suffix');
  const blocks: unknown = Reflect.get(marker, 'blocks');
  if (typeof content === 'string') {
    if (typeof suffix !== 'string' || !content.endsWith(suffix)) return undefined;
    return content.slice(0, content.length - suffix.length);
  }
  if (!Array.isArray(blocks) || blocks.length > content.length) return undefined;
  const start = content.length - blocks.length;
  const matches = blocks.every((text, index) => {
    const part: ContentPart | undefined = content[start + index];
    return part?.type === 'text' && part.text === text;
  });
  return matches ? content.slice(0, start) : undefined;
}

/** Cleans replayed assistant text so the model does not learn to imitate bookkeeping lines. */
function sanitizeAssistantText(text: string): string {
  const withoutTime = text.replace(MESSAGE_TIME_LINE, '');
  return withoutTime
    .split('\n')
    .filter((line) => !IMAGE_BREADCRUMB_LINE.test(line.trim()) && !TOOL_ECHO_LINE.test(line))
    .join('\n')
    .trim();
}

function withMediaBreadcrumbs(text: string, message: Message): string {
  const media = nanobotField(message, 'media');
  if (!Array.isArray(media)) return text;
  const paths = media.filter((entry): entry is string => typeof entry === 'string');
  return paths.length === 0 ? text : [text, ...paths.map((entry) => `[image: ${entry}]`)].join('\n');
}
