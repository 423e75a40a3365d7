import { type Message, SECTION_KEY, sectionOf } from '../core/message.js';

/**
 * Tags messages with their section (`metadata.section`, the producing provider's id) and remembers
 * the tagged copy per input message, so a history replayed every turn keeps its object identity and
 * every cache keyed by identity (token counts, tool-result rewrites) answers without rebuilding a key.
 * A message that already has a section is returned as it is. @internal
 */
export class SectionTags {
  readonly #tagged = new WeakMap<Message, Message>();

  /** `message` tagged with `section` (the same object for the same message and section). */
  tag(message: Message, section: string): Message {
    if (sectionOf(message) !== undefined) return message;
    const known = this.#tagged.get(message);
    if (known !== undefined && sectionOf(known) === section) return known;
    const tagged: Message = { ...message, metadata: { ...message.metadata, [SECTION_KEY]: section } };
    this.#tagged.set(message, tagged);
    return tagged;
  }
}
