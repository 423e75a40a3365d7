import type { Content, ContentPart } from '../core/message.js';

/**
 * Merges two message contents: two strings join with `"\n\n"` (an empty side is
 * dropped, with no separator); otherwise both sides become part lists and are concatenated. A part
 * list is kept as is (reasoning and provider parts included, whole; items that are not content parts
 * become text parts via `String`), `null` and
 * `undefined` become no parts, and any other value becomes one text part.
 *
 * @example
 * mergeContent('', 'world') // 'world'
 * mergeContent(null, 'hello') // [{ type: 'text', text: 'hello' }]
 */
export function mergeContent(left: unknown, right: unknown): Content {
  if (typeof left === 'string' && typeof right === 'string') {
    if (left === '') return right;
    if (right === '') return left;
    return `${left}\n\n${right}`;
  }
  return [...toParts(left), ...toParts(right)];
}

function toParts(value: unknown): readonly ContentPart[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (!Array.isArray(value)) return [{ type: 'text', text: String(value) }];
  return value.map(
    (item: unknown): ContentPart => (isContentPart(item) ? item : { type: 'text', text: String(item) }),
  );
}

function isContentPart(value: unknown): value is ContentPart {
  if (typeof value !== 'object' || value === null) return false;
  const type: unknown = Reflect.get(value, 'type');
  if (type === 'text') return typeof Reflect.get(value, 'text') === 'string';
  if (type === 'image' || type === 'file') return typeof Reflect.get(value, 'url') === 'string';
  // Reasoning and provider parts are atomic: kept whole, never turned into text.
  if (type === 'reasoning') return typeof Reflect.get(value, 'text') === 'string';
  if (type === 'provider') return typeof Reflect.get(value, 'format') === 'string';
  return false;
}
