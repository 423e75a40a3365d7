import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import { truncateText } from '../core/truncate-text.js';
import { NANOBOT_EXTRA_KEY, RUNTIME_CONTEXT_KEY } from '../sessions/nanobot-message.js';
import { stripRuntimeContextExactly } from '../sessions/replay-sanitize.js';

/** nanobot's cap on a raw archive entry. */
export const DEFAULT_RAW_ARCHIVE_MAX_CHARS = 16_000;

/**
 * The raw archive written when the model cannot summarise (§5.4):
 * `[RAW] {n} messages` then one line per message with content,
 * `[{timestamp[:16] or ?}] {ROLE}{ [tools: a, b]}: {content}` (public view: runtime context removed;
 * user media appended as `[image: path]`), truncated to `maxChars`.
 */
export function formatRawArchive(
  messages: readonly Message[],
  maxChars = DEFAULT_RAW_ARCHIVE_MAX_CHARS,
): string {
  const lines: string[] = [];
  for (const message of messages) {
    const content = publicText(message);
    if (content.trim() === '') continue;
    const stamp = message.metadata?.['timestamp'];
    const time = stamp === undefined || stamp === null || stamp === '' ? '?' : String(stamp).slice(0, 16);
    const tools = (message.toolCalls ?? []).map((call) => call.name);
    const toolText = tools.length > 0 ? ` [tools: ${tools.join(', ')}]` : '';
    lines.push(`[${time}] ${message.role.toUpperCase()}${toolText}: ${content}`);
  }
  return truncateText(`[RAW] ${messages.length} messages\n${lines.join('\n')}`, maxChars);
}

function publicText(message: Message): string {
  const marker = message.metadata?.[RUNTIME_CONTEXT_KEY];
  const content =
    marker === undefined
      ? message.content
      : (stripRuntimeContextExactly(message.content, marker) ?? message.content);
  const images =
    typeof content === 'string'
      ? []
      : content.flatMap((part) => (part.type === 'image' ? [part.path ?? part.url.slice(0, 40)] : []));
  const media = message.role === 'user' ? mediaPaths(message) : [];
  return [textOf(content), ...[...images, ...media].map((entry) => `[image: ${entry}]`)].join('\n');
}

function mediaPaths(message: Message): readonly string[] {
  const extra = message.metadata?.[NANOBOT_EXTRA_KEY];
  const media = typeof extra === 'object' && extra !== null ? Reflect.get(extra, 'media') : undefined;
  return Array.isArray(media) ? media.filter((entry): entry is string => typeof entry === 'string') : [];
}
