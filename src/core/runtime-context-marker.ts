import { isRecord } from './is-record.js';
import type { Content, ContentPart } from './message.js';

/**
 * The metadata key of the runtime-context marker on a user message; stored sessions keep it as
 * nanobot's `_runtime_context` field.
 */
export const RUNTIME_CONTEXT_KEY = 'runtimeContext';

/** A text block as nanobot writes it into a list marker. */
export type RuntimeContextTextBlock = { readonly type: 'text'; readonly text: string };

/**
 * What was appended to a user message, exactly as nanobot records it, so the bytes replay next turn
 * and a public view can strip them: `suffix` (the blocks joined by a blank line, without the
 * separator before them) for string content, `blocks` (the appended text blocks) for part lists.
 */
export type RuntimeContextMarker =
  | { readonly version: 1; readonly sources: readonly string[]; readonly suffix: string }
  | {
      readonly version: 1;
      readonly sources: readonly string[];
      readonly blocks: readonly RuntimeContextTextBlock[];
    };

/**
 * The content without the runtime context a marker describes, removed exactly as nanobot's public
 * view does; `undefined` when the marker does not match (so nothing the user wrote is touched). A
 * string loses `"\n\n" + suffix` at its end (or becomes `''` when it IS the suffix); a part list loses
 * its last parts when they equal the marker's blocks (`{ type: 'text', text }`, nothing more). The
 * marker must be version 1 and name a non-empty suffix or block list.
 */
export function stripRuntimeContextExactly(content: Content, marker: unknown): Content | undefined {
  if (!isRecord(marker) || !isVersionOne(marker['version'])) return undefined;
  const suffix = marker['suffix'];
  if (typeof content === 'string') {
    if (typeof suffix !== 'string' || suffix === '') return undefined;
    if (content === suffix) return '';
    return content.endsWith(`\n\n${suffix}`) ? content.slice(0, -(suffix.length + 2)) : undefined;
  }
  const blocks = marker['blocks'];
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > content.length) return undefined;
  const start = content.length - blocks.length;
  const matches = blocks.every((block: unknown, index) => isSameTextBlock(block, content[start + index]));
  return matches ? content.slice(0, start) : undefined;
}

/** nanobot tests `version != 1` in Python, where `true == 1`. */
function isVersionOne(version: unknown): boolean {
  return version === 1 || version === true;
}

/** Python's `dict == dict` between a recorded block and a text part (whose dict is `{type, text}`). */
function isSameTextBlock(block: unknown, part: ContentPart | undefined): boolean {
  if (!isRecord(block) || part?.type !== 'text') return false;
  const keys = Object.keys(block);
  return keys.length === 2 && block['type'] === 'text' && block['text'] === part.text;
}
