const TAGS = 'think|thinking|thought';
const CLOSED_BLOCK = new RegExp(`<(${TAGS})\\b[^>]*>[\\s\\S]*?<\\/\\1\\s*>`, 'gi');
const UNCLOSED_OPEN = new RegExp(`<(?:${TAGS})\\b[^>]*>[\\s\\S]*$`, 'i');
const LEADING_CLOSE = new RegExp(`^\\s*<\\/(?:${TAGS})\\s*>`, 'i');
const TRAILING_CLOSE = new RegExp(`<\\/(?:${TAGS})\\s*>\\s*$`, 'i');
const CHANNEL_MARKER = /<\|?channel\|?>/gi;
const TRAILING_PARTIAL = /<(\/?)([a-z]*)$/i;
const TAG_NAMES = ['think', 'thinking', 'thought'];

/**
 * Removes reasoning that leaked into model text before it reaches history.jsonl: closed
 * `<think>`/`<thinking>`/`<thought>` blocks, an unclosed opening tag and everything after it, orphan
 * closing tags at either edge, `<channel|>` markers and a trailing partial tag. The result is trimmed;
 * it may be `''` (callers persist `''`, never the raw leak).
 */
export function stripReasoningLeaks(text: string): string {
  let out = text.replace(CLOSED_BLOCK, '');
  out = out.replace(UNCLOSED_OPEN, '');
  out = out.replace(CHANNEL_MARKER, '');
  let previous = '';
  while (previous !== out) {
    previous = out;
    out = out.replace(LEADING_CLOSE, '').replace(TRAILING_CLOSE, '');
  }
  const partial = TRAILING_PARTIAL.exec(out);
  if (partial !== null && isPartialTag(partial[1] ?? '', (partial[2] ?? '').toLowerCase())) {
    out = out.slice(0, partial.index);
  }
  return out.trim();
}

function isPartialTag(slash: string, name: string): boolean {
  return TAG_NAMES.some((tag) => tag.startsWith(name)) && (slash !== '' || name !== '');
}
