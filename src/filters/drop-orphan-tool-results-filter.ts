import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { decision } from '../core/decision.js';
import type { Message, ToolCall } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { UnchangedListMemo } from './unchanged-list-memo.js';

/** Options for {@link DropOrphanToolResultsFilter}. */
export type DropOrphanToolResultsFilterOptions = {
  /** The stage id. @default 'drop-orphan-tool-results' */
  readonly id?: string;
};

/** The keys of {@link DropOrphanToolResultsFilterOptions}, for `checkOptions`. @internal */
export const DROP_ORPHAN_TOOL_RESULTS_FILTER_OPTION_KEYS = {
  id: true,
} as const satisfies OptionKeys<DropOrphanToolResultsFilterOptions>;

/**
 * Governor steps 3 and 8: drops tool results that cannot be paired. A result is dropped when its
 * `toolCallId` is missing or empty, when no assistant declared the id, or when the id was already
 * answered (the first result wins).
 *
 * Stricter than nanobot (which accepts a result anywhere after its call): a result must sit in the
 * run of tool messages directly after the assistant that declared it, since OpenAI and Anthropic
 * reject anything else. A result separated from its call is dropped; step 4 backfills the call.
 * Whether a result is an orphan depends on its run (the message before it and the results between),
 * so a list derived from the last one it left unchanged is checked only in the runs that changed.
 */
export class DropOrphanToolResultsFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #memo = new UnchangedListMemo();

  constructor(options: DropOrphanToolResultsFilterOptions = {}) {
    checkOptions(options, {
      where: 'new DropOrphanToolResultsFilter options',
      known: DROP_ORPHAN_TOOL_RESULTS_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'drop-orphan-tool-results';
  }

  apply(messages: readonly Message[]): FilterResult {
    if (this.#memo.runsStillPass(messages, (run) => findOrphanResults(run).size === 0)) {
      this.#memo.remember(messages, true);
      return { messages, decisions: [] };
    }
    const orphans = findOrphanResults(messages);
    this.#memo.remember(messages, orphans.size === 0);
    if (orphans.size === 0) return { messages, decisions: [] };
    const dropped = messages.filter((message) => orphans.has(message));
    return {
      messages: messages.filter((message) => !orphans.has(message)),
      decisions: dropped.map((message) =>
        decision('message-drop', {
          stage: this.id,
          reason:
            message.toolCallId === undefined || message.toolCallId === ''
              ? 'tool result without a toolCallId'
              : `tool result ${message.toolCallId} does not answer a pending call of the assistant before it`,
          messageIds: [message.id],
          ...(message.toolCallId === undefined ? {} : { details: { toolCallId: message.toolCallId } }),
        }),
      ),
    };
  }
}

/** The tool messages of `messages` that answer no pending call of the directly preceding assistant. */
export function findOrphanResults(messages: readonly Message[]): ReadonlySet<Message> {
  const orphans = new Set<Message>();
  // The calls of the assistant before the current run of tool messages, and the ids answered in it.
  let calls: readonly ToolCall[] = [];
  let answered: Set<string> | undefined;
  for (const message of messages) {
    if (message.role !== 'tool') {
      calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
      answered = undefined;
      continue;
    }
    const id = message.toolCallId;
    if (id !== undefined && id !== '' && answered?.has(id) !== true && calls.some((call) => call.id === id)) {
      answered ??= new Set();
      answered.add(id);
      continue;
    }
    orphans.add(message);
  }
  return orphans;
}
