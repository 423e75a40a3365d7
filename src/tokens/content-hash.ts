import type { Message } from '../core/message.js';

/**
 * A 64-bit content fingerprint built in one pass over the text, never holding a copy of it: two
 * independent 32-bit multiply-xor lanes (the cyrb53 construction) fed UTF-16 code units, with each
 * field's length fed after it so field boundaries are unambiguous, and the total length mixed into
 * the result. Two different inputs share a fingerprint with probability about 2⁻⁶⁴ per pair, so a
 * cache of 100,000 entries has a collision chance near 3·10⁻¹⁰.
 * @internal
 */
export class ContentHash {
  #h1 = 0xdeadbeef;
  #h2 = 0x41c6ce57;
  #length = 0;

  /** Feeds one field: its code units, then its length. */
  add(text: string): this {
    let h1 = this.#h1;
    let h2 = this.#h2;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      h1 = Math.imul(h1 ^ code, 2654435761);
      h2 = Math.imul(h2 ^ code, 1597334677);
    }
    h1 = Math.imul(h1 ^ text.length, 2654435761);
    h2 = Math.imul(h2 ^ text.length, 1597334677);
    this.#h1 = h1;
    this.#h2 = h2;
    this.#length += text.length + 1;
    return this;
  }

  /** The fingerprint as a 4-code-unit string (a compact `Map` key: about 24 bytes, whatever the input). */
  digest(): string {
    let h1 = this.#h1 ^ this.#length;
    let h2 = this.#h2 ^ Math.imul(this.#length, 0x9e3779b1);
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return String.fromCharCode(h1 & 0xffff, h1 >>> 16, h2 & 0xffff, h2 >>> 16);
  }
}

/** The fingerprint of one text (see {@link ContentHash}). @internal */
export function hashText(text: string): string {
  return new ContentHash().add(text).digest();
}

/**
 * The fingerprint of everything that can affect a message's count, and nothing else: role, name,
 * tool call id, tool calls, reasoning and content (not the id, not metadata). Structured content and
 * tool calls are fingerprinted through their JSON, so every field counts (a custom counter may read
 * any) and malformed input (a `null` tool name from a relay) is fingerprinted like any other.
 * @internal
 */
export function hashMessageContent(message: Message): string {
  const { content, toolCalls } = message;
  const hash = new ContentHash().add(field(message.role)).add(field(message.name));
  hash.add(field(message.toolCallId)).add(field(message.reasoning));
  hash.add(toolCalls === undefined ? '' : JSON.stringify(toolCalls));
  hash.add(typeof content === 'string' ? content : JSON.stringify(content));
  return hash.add(`${typeof content === 'string' ? 's' : 'p'}${toolCalls === undefined ? 0 : 1}`).digest();
}

/** A field as text: itself when it is a string (no copy), else a marked JSON form. */
function field(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : `\u0000${JSON.stringify(value)}`;
}
