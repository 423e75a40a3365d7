import { decision } from '../core/decision.js';
import { type Message, SECTION_KEY, sectionOf } from '../core/message.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';

/** Options for {@link JoinSystemMessagesFilter}. */
export type JoinSystemMessagesFilterOptions = {
  /** The filter id. @default 'join-system-messages' */
  readonly id?: string;
  /** The text between parts. @default '\n\n---\n\n' (nanobot) */
  readonly separator?: string;
  /** The section of the joined message. @default 'system-prompt' */
  readonly section?: string;
};

/** One part of a joined system message: the section that made it and its length in characters. */
export type SystemPromptPart = { readonly section: string; readonly chars: number };

/** The metadata key listing the parts of a joined system message. */
export const SYSTEM_PROMPT_PARTS_KEY = 'parts';

/**
 * Joins the leading run of string-content system messages into ONE system message (strict
 * providers and prompt caches want a single system prompt), separated by `separator`. The joined
 * message records `metadata.parts`: `[{ section, chars }]` in order, so the text can be sliced back
 * into its parts (part i starts after the previous parts and one separator each) and the inspector
 * can show each part's tokens. A lone leading system message only gains `parts`. Emits one
 * `message-merge` decision per join; running it again changes nothing.
 */
export class JoinSystemMessagesFilter implements ContextFilter {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly onError = 'skip';
  readonly separator: string;
  readonly section: string;

  constructor(options: JoinSystemMessagesFilterOptions = {}) {
    this.id = options.id ?? 'join-system-messages';
    this.separator = options.separator ?? '\n\n---\n\n';
    this.section = options.section ?? 'system-prompt';
  }

  apply(messages: readonly Message[], _input: unknown, context: BuildContext): FilterResult {
    let count = 0;
    while (count < messages.length && isJoinable(messages[count])) count += 1;
    const first = messages[0];
    if (first === undefined || count === 0) return { messages, decisions: [] };
    if (count === 1) {
      if (first.metadata?.[SYSTEM_PROMPT_PARTS_KEY] !== undefined) return { messages, decisions: [] };
      const parts = [{ section: sectionOf(first) ?? this.section, chars: textLength(first) }];
      return { messages: [withParts(first, parts), ...messages.slice(1)], decisions: [] };
    }
    const joined = messages.slice(0, count);
    const texts = joined.map((message) => (typeof message.content === 'string' ? message.content : ''));
    const parts = joined.map((message, index) => ({
      section: sectionOf(message) ?? 'unknown',
      chars: texts[index]?.length ?? 0,
    }));
    const merged: Message = {
      id: context.generateId(),
      role: 'system',
      content: texts.join(this.separator),
      metadata: { [SECTION_KEY]: this.section, [SYSTEM_PROMPT_PARTS_KEY]: parts },
    };
    const reason = `Joined ${count} system parts (${parts.map((part) => part.section).join(', ')}) into one system message.`;
    return {
      messages: [merged, ...messages.slice(count)],
      decisions: [
        decision('message-merge', {
          stage: this.id,
          reason,
          messageIds: joined.map((message) => message.id),
          details: { mergedId: merged.id, parts },
        }),
      ],
    };
  }
}

function isJoinable(message: Message | undefined): boolean {
  return message?.role === 'system' && typeof message.content === 'string';
}

function textLength(message: Message): number {
  return typeof message.content === 'string' ? message.content.length : 0;
}

function withParts(message: Message, parts: readonly SystemPromptPart[]): Message {
  return { ...message, metadata: { ...message.metadata, [SYSTEM_PROMPT_PARTS_KEY]: parts } };
}
