import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Decision, decision } from '../core/decision.js';
import { type Message, SECTION_KEY, sectionOf } from '../core/message.js';
import { withLead } from '../core/with-lead.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { mergeCarriedFields } from './merge-messages.js';

/** Options for {@link JoinSystemMessagesFilter}. */
export type JoinSystemMessagesFilterOptions = {
  /** The filter id. @default 'join-system-messages' */
  readonly id?: string;
  /** The text between parts. @default '\n\n---\n\n' (nanobot) */
  readonly separator?: string;
  /** The section of the joined message. @default 'system-prompt' */
  readonly section?: string;
};

/** The keys of {@link JoinSystemMessagesFilterOptions}, for `checkOptions`. @internal */
export const JOIN_SYSTEM_MESSAGES_FILTER_OPTION_KEYS = {
  id: true,
  separator: true,
  section: true,
} as const satisfies OptionKeys<JoinSystemMessagesFilterOptions>;

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
  /** The last leading system messages joined, and what they were joined into (given again for the same ones). */
  #last:
    | {
        readonly joined: readonly Message[];
        readonly lead: readonly Message[];
        readonly decisions: readonly Decision[];
      }
    | undefined;

  constructor(options: JoinSystemMessagesFilterOptions = {}) {
    checkOptions(options, {
      where: 'new JoinSystemMessagesFilter options',
      known: JOIN_SYSTEM_MESSAGES_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'join-system-messages';
    this.separator = options.separator ?? '\n\n---\n\n';
    this.section = options.section ?? 'system-prompt';
  }

  apply(messages: readonly Message[], _input: unknown, context: BuildContext): FilterResult {
    let count = 0;
    while (count < messages.length && isJoinable(messages[count])) count += 1;
    const first = messages[0];
    if (first === undefined || count === 0) return { messages, decisions: [] };
    if (count === 1 && first.metadata?.[SYSTEM_PROMPT_PARTS_KEY] !== undefined)
      return { messages, decisions: [] };
    const joined = messages.slice(0, count);
    const last = this.#last;
    // The same system messages as last build (by identity): the same joined message, id and decision.
    const known =
      last !== undefined &&
      last.joined.length === count &&
      joined.every((message, index) => message === last.joined[index])
        ? last
        : { joined, ...this.#join(joined, context) };
    this.#last = known;
    const out = withLead(messages, { skip: count - known.lead.length, lead: known.lead });
    return { messages: out, decisions: known.decisions };
  }

  /** The leading system messages as one (a lone one only gains `parts`), and the decision. */
  #join(
    joined: readonly Message[],
    context: BuildContext,
  ): { readonly lead: readonly Message[]; readonly decisions: readonly Decision[] } {
    const first = joined[0] as Message; // joined is not empty
    if (joined.length === 1) {
      const parts = [{ section: sectionOf(first) ?? this.section, chars: textLength(first) }];
      return { lead: [withParts(first, parts)], decisions: [] };
    }
    const texts = joined.map((message) => (typeof message.content === 'string' ? message.content : ''));
    const parts = joined.map((message, index) => ({
      section: sectionOf(message) ?? 'unknown',
      chars: texts[index]?.length ?? 0,
    }));
    // Provider options (a cache marker) and native fields of the parts stay on the joined message.
    let carried: Message = first;
    for (const message of joined) carried = { ...carried, ...mergeCarriedFields(carried, message) };
    const merged: Message = {
      id: context.generateId(),
      role: 'system',
      content: texts.join(this.separator),
      ...(carried.providerOptions === undefined ? {} : { providerOptions: carried.providerOptions }),
      ...(carried.native === undefined ? {} : { native: carried.native }),
      metadata: { [SECTION_KEY]: this.section, [SYSTEM_PROMPT_PARTS_KEY]: parts },
    };
    const reason = `Joined ${joined.length} system parts (${parts.map((part) => part.section).join(', ')}) into one system message.`;
    return {
      lead: [merged],
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
