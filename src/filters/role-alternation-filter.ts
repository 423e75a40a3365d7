import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Decision, decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { mergeMessages } from './merge-messages.js';

/** Options for {@link RoleAlternationFilter}. */
export type RoleAlternationFilterOptions = {
  /** The stage id. @default 'role-alternation' */
  readonly id?: string;
  /** The synthetic user message inserted before a leading assistant. @default '(conversation continued)' */
  readonly continuationText?: string;
  /** Replaces empty string content (providers reject it); `undefined` keeps it. @default '(empty)' */
  readonly emptyContentText?: string | undefined;
};

/** The keys of {@link RoleAlternationFilterOptions}, for `checkOptions`. @internal */
export const ROLE_ALTERNATION_FILTER_OPTION_KEYS = {
  id: true,
  continuationText: true,
  emptyContentText: true,
} as const satisfies OptionKeys<RoleAlternationFilterOptions>;

/**
 * Makes the role sequence legal for strict providers (GLM error 1214, Anthropic): merges neighbouring
 * user or assistant messages of the same role, system messages between them not counting (strings
 * joined by a blank line, otherwise part lists concatenated, an assistant's leading reasoning parts
 * first; tool calls concatenated; every other field kept, see `mergeMessages`; the merged
 * message takes the second one's place, after those system messages), drops trailing assistant messages (turning the last one
 * into a user message when only system messages would remain), inserts a synthetic user message
 * `(conversation continued)` before an assistant that follows the system messages, and replaces empty
 * string contents with `(empty)` (an assistant with tool calls keeps `''`). Optional: add it after
 * the governor for providers that need it.
 */
export class RoleAlternationFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #continuation: string;
  readonly #empty: string | undefined;

  constructor(options: RoleAlternationFilterOptions = {}) {
    checkOptions(options, {
      where: 'new RoleAlternationFilter options',
      known: ROLE_ALTERNATION_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'role-alternation';
    this.#continuation = options.continuationText ?? '(conversation continued)';
    this.#empty = 'emptyContentText' in options ? options.emptyContentText : '(empty)';
  }

  apply(messages: readonly Message[]): FilterResult {
    const decisions: Decision[] = [];
    let out = this.#merge(messages, decisions);
    out = this.#dropTrailing(out, decisions);
    out = this.#insertLeadingUser(out, decisions);
    out = this.#fillEmpty(out, decisions);
    return decisions.length === 0 ? { messages, decisions: [] } : { messages: out, decisions };
  }

  #merge(messages: readonly Message[], decisions: Decision[]): readonly Message[] {
    const out: Message[] = [];
    let changed = false;
    for (const message of messages) {
      // The last message that is not a system message: system messages between two messages of one
      // role do not keep them apart (strict providers read the roles without them).
      let at = out.length - 1;
      while (at >= 0 && out[at]?.role === 'system') at -= 1;
      const previous = out[at];
      const mergeable = message.role === 'user' || message.role === 'assistant';
      if (previous === undefined || !mergeable || previous.role !== message.role) {
        out.push(message);
        continue;
      }
      changed = true;
      // Merged where the second one was, so tool results after it still follow their calls; the
      // system messages between the two now come before the merged message.
      out.splice(at, 1);
      out.push(mergeMessages(previous, message));
      decisions.push(
        decision('message-merge', {
          stage: this.id,
          reason: `merged consecutive ${message.role} messages`,
          messageIds: [previous.id, message.id],
        }),
      );
    }
    return changed ? out : messages;
  }

  #dropTrailing(messages: readonly Message[], decisions: Decision[]): readonly Message[] {
    let end = messages.length;
    while (end > 0 && messages[end - 1]?.role === 'assistant') end -= 1;
    if (end === messages.length) return messages;
    const onlySystemLeft = messages.slice(0, end).every((message) => message.role === 'system');
    const dropped = messages.slice(end);
    if (onlySystemLeft) {
      const last = dropped.at(-1) as Message; // end < length, so there is one
      const rest = dropped.slice(0, -1);
      if (rest.length > 0) decisions.push(this.#drop(rest, 'trailing assistant message(s) dropped'));
      const { toolCalls: _calls, reasoning: _reasoning, ...kept } = last;
      decisions.push(
        decision('message-rewrite', {
          stage: this.id,
          reason: 'lone trailing assistant message turned into a user message',
          messageIds: [last.id],
        }),
      );
      return [...messages.slice(0, end), { ...kept, role: 'user' }];
    }
    decisions.push(this.#drop(dropped, 'trailing assistant message(s) dropped'));
    return messages.slice(0, end);
  }

  #insertLeadingUser(messages: readonly Message[], decisions: Decision[]): readonly Message[] {
    const first = messages.findIndex((message) => message.role !== 'system');
    const leading = messages[first];
    if (leading === undefined || leading.role !== 'assistant') return messages;
    const inserted: Message = {
      id: `${leading.id}:continued`,
      role: 'user',
      content: this.#continuation,
      ...(leading.metadata === undefined ? {} : { metadata: leading.metadata }),
    };
    decisions.push(
      decision('message-insert', {
        stage: this.id,
        reason: 'the conversation may not start with an assistant message',
        messageIds: [inserted.id],
      }),
    );
    return [...messages.slice(0, first), inserted, ...messages.slice(first)];
  }

  #fillEmpty(messages: readonly Message[], decisions: Decision[]): readonly Message[] {
    const empty = this.#empty;
    if (empty === undefined) return messages;
    const isEmpty = (message: Message): boolean =>
      message.content === '' && !(message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0);
    if (!messages.some(isEmpty)) return messages;
    return messages.map((message) => {
      if (!isEmpty(message)) return message;
      decisions.push(
        decision('message-rewrite', {
          stage: this.id,
          reason: `empty content replaced with ${JSON.stringify(empty)}`,
          messageIds: [message.id],
        }),
      );
      return { ...message, content: empty };
    });
  }

  #drop(messages: readonly Message[], reason: string): Decision {
    return decision('message-drop', {
      stage: this.id,
      reason,
      messageIds: messages.map((message) => message.id),
    });
  }
}
