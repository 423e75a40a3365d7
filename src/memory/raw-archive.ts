import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import { NANOBOT_EXTRA_KEY, RUNTIME_CONTEXT_KEY } from '../sessions/nanobot-message.js';
import { stripRuntimeContextExactly } from '../sessions/replay-sanitize.js';

/** nanobot's cap on a raw archive entry. */
export const DEFAULT_RAW_ARCHIVE_MAX_CHARS = 16_000;

/**
 * The raw archive written when the model cannot summarise, as history entries of at most
 * `maxChars` characters each. The text is nanobot's: `[RAW] {n} messages` then one line per message
 * with content, `[{timestamp[:16] or ?}] {ROLE}{ [tools: a, b] from a stored tools_used}: {content}` (public view: runtime
 * context removed; a user's media appended as `[image: path]` lines, on the same line when there is no
 * text). When it fits in `maxChars` that is the one entry, byte for byte nanobot's. Where nanobot
 * truncates a longer archive (losing the rest, a nanobot bug), it is split instead into parts
 * headed `[RAW] {n} messages (part {k}/{K})`, cut between lines where possible, so every message is
 * kept whole across the parts.
 */
export function formatRawArchiveEntries(
  messages: readonly Message[],
  maxChars = DEFAULT_RAW_ARCHIVE_MAX_CHARS,
): readonly string[] {
  const lines = messages.flatMap((message) => {
    const line = archiveLine(message);
    return line === undefined ? [] : [line];
  });
  const whole = `[RAW] ${messages.length} messages\n${lines.join('\n')}`;
  if (whole.length <= maxChars) return [whole];
  const header = (part: number, parts: number): string =>
    `[RAW] ${messages.length} messages (part ${part}/${parts})\n`;
  const room = Math.max(1, maxChars - header(999_999, 999_999).length);
  const bodies = pack(lines, room);
  return bodies.map((body, index) => `${header(index + 1, bodies.length)}${body}`);
}

/** Packs lines into bodies of at most `room` characters, splitting only lines longer than `room`. */
function pack(lines: readonly string[], room: number): string[] {
  const bodies: string[] = [];
  let current = '';
  for (const line of lines) {
    const joined = current === '' ? line : `${current}\n${line}`;
    if (joined.length <= room) {
      current = joined;
      continue;
    }
    if (current !== '') bodies.push(current);
    let rest = line;
    while (rest.length > room) {
      bodies.push(rest.slice(0, room));
      rest = rest.slice(room);
    }
    current = rest;
  }
  if (current !== '' || bodies.length === 0) bodies.push(current);
  return bodies;
}

function archiveLine(message: Message): string | undefined {
  const content = publicText(message);
  if (content === '') return undefined;
  const stamp = message.metadata?.['timestamp'];
  const time = stamp === undefined || stamp === null || stamp === '' ? '?' : String(stamp).slice(0, 16);
  const tools = toolsUsed(message);
  const toolText = tools.length > 0 ? ` [tools: ${tools.join(', ')}]` : '';
  return `[${time}] ${message.role.toUpperCase()}${toolText}: ${content}`;
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
  const media = message.role === 'user' ? stringList(nanobotField(message, 'media')) : [];
  const breadcrumbs = [...images, ...media]
    .filter((entry) => entry !== '')
    .map((entry) => `[image: ${entry}]`);
  const text = textOf(content);
  return [...(text === '' ? [] : [text]), ...breadcrumbs].join('\n');
}

/** nanobot's `tools_used` field of a stored message (nanobot does not derive it from `tool_calls`). */
function toolsUsed(message: Message): readonly string[] {
  return stringList(nanobotField(message, 'tools_used'));
}

function nanobotField(message: Message, key: string): unknown {
  const extra = message.metadata?.[NANOBOT_EXTRA_KEY];
  return typeof extra === 'object' && extra !== null ? Reflect.get(extra, key) : undefined;
}

function stringList(value: unknown): readonly string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
