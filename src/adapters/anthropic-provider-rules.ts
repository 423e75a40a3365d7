import type { AdapterWarning } from './adapter-warning.js';
import type { AnthropicContentBlock, AnthropicMessage } from './anthropic-types.js';

/** The block type of a server-side compaction summary. */
export const COMPACTION = 'compaction';

type Located = { readonly message: number; readonly block: number };

/**
 * Makes the request keep Anthropic's compaction rules: at most one `compaction` block (the last one,
 * the summary the conversation returned last; earlier ones are left out with a warning), and it is
 * the first block of the conversation (moved there with a warning when a stage put something before
 * it). The block itself is never edited: its signature covers its content.
 */
export function placeCompaction(
  messages: AnthropicMessage[],
  warnings: AdapterWarning[],
): AnthropicMessage[] {
  const found: Located[] = [];
  messages.forEach((message, at) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, index) => {
      if (typeOf(block) === COMPACTION) found.push({ message: at, block: index });
    });
  });
  const last = found.at(-1);
  if (last === undefined || (found.length === 1 && last.message === 0 && last.block === 0)) return messages;
  const kept = blockAt(messages, last);
  for (const place of found.slice(0, -1)) {
    warnings.push({
      type: 'dropped-field',
      index: place.message,
      message: 'compaction block left out: Anthropic takes one, the one the conversation returned last',
    });
  }
  const drop = new Set(found.map((place) => `${place.message}:${place.block}`));
  const out = messages.flatMap((message, at): AnthropicMessage[] => {
    if (typeof message.content === 'string') return [message];
    const content = message.content.filter((_, index) => !drop.has(`${at}:${index}`));
    return content.length === 0 ? [] : [{ ...message, content }];
  });
  if (kept === undefined) return out;
  if (last.message !== 0 || last.block !== 0) {
    warnings.push({
      type: 'converted',
      index: last.message,
      message: 'compaction block moved first: Anthropic takes it only as the first block of the conversation',
    });
  }
  const [first, ...rest] = out;
  if (first === undefined) return [{ role: 'assistant', content: [kept] }];
  const content =
    typeof first.content === 'string' ? [{ type: 'text' as const, text: first.content }] : first.content;
  return [{ ...first, content: [kept, ...content] }, ...rest];
}

/**
 * Puts the thinking blocks of the last assistant turn first, as Anthropic requires of a tool loop's
 * last assistant turn with thinking on (a compaction block that opens the conversation stays first).
 */
export function thinkingFirst(messages: AnthropicMessage[], warnings: AdapterWarning[]): void {
  const at = messages.findLastIndex((message) => message.role === 'assistant');
  const message = messages[at];
  if (message === undefined || typeof message.content === 'string') return;
  const lead = at === 0 && typeOf(message.content[0]) === COMPACTION ? 1 : 0;
  const body = message.content.slice(lead);
  const thinking = body.filter(isThinking);
  const firstOther = body.findIndex((block) => !isThinking(block));
  const lastThinking = body.findLastIndex(isThinking);
  if (thinking.length === 0 || firstOther === -1 || lastThinking < firstOther) return;
  warnings.push({
    type: 'converted',
    index: at,
    message: 'thinking blocks of the last assistant turn moved first, as Anthropic requires',
  });
  const content = [
    ...message.content.slice(0, lead),
    ...thinking,
    ...body.filter((block) => !isThinking(block)),
  ];
  messages[at] = { ...message, content };
}

function blockAt(messages: readonly AnthropicMessage[], place: Located): AnthropicContentBlock | undefined {
  const content = messages[place.message]?.content;
  return typeof content === 'string' ? undefined : content?.[place.block];
}

function isThinking(block: AnthropicContentBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

/** A block's type as a string: provider blocks (a `compaction`) are outside the typed union. */
export function typeOf(block: AnthropicContentBlock | undefined): string | undefined {
  return block?.type;
}
