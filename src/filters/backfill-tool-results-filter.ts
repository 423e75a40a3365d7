import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Decision, decision } from '../core/decision.js';
import { type Message, SECTION_KEY, sectionOf, type ToolCall } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { DEFAULT_BACKFILL_TEXT } from './governor-constants.js';
import { UnchangedListMemo } from './unchanged-list-memo.js';

/** Options for {@link BackfillToolResultsFilter}. */
export type BackfillToolResultsFilterOptions = {
  /** The stage id. @default 'backfill-tool-results' */
  readonly id?: string;
  /** The content of a backfilled result. @default '[Tool result unavailable — call was interrupted or lost]' */
  readonly text?: string;
};

/** The keys of {@link BackfillToolResultsFilterOptions}, for `checkOptions`. @internal */
export const BACKFILL_TOOL_RESULTS_FILTER_OPTION_KEYS = {
  id: true,
  text: true,
} as const satisfies OptionKeys<BackfillToolResultsFilterOptions>;

/**
 * Governor steps 4 and 9: for every declared tool call without a result, inserts a tool message
 * (`toolCallId`, the call's name, the backfill text) after the assistant and the tool messages that
 * directly follow it (in the assistant's section). Backfilled ids are `<assistant id>:backfill:<call id>` (deterministic, so a
 * rebuilt context is byte-identical). Returns the same list when nothing is missing. Each run (an
 * assistant and the results right after it) is filled on its own, so a list derived from the last
 * one it returned unchanged is checked only in the runs that changed.
 */
export class BackfillToolResultsFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #text: string;
  readonly #memo = new UnchangedListMemo();

  constructor(options: BackfillToolResultsFilterOptions = {}) {
    checkOptions(options, {
      where: 'new BackfillToolResultsFilter options',
      known: BACKFILL_TOOL_RESULTS_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'backfill-tool-results';
    this.#text = options.text ?? DEFAULT_BACKFILL_TEXT;
  }

  apply(messages: readonly Message[]): FilterResult {
    const unchanged = this.#memo.runsStillPass(messages, (run) => this.#fill(run) === undefined);
    const result = unchanged
      ? { messages, decisions: [] }
      : (this.#fill(messages) ?? { messages, decisions: [] });
    this.#memo.remember(messages, result.messages === messages);
    return result;
  }

  /** The list with every missing result filled in and the decisions, or `undefined` when none is missing. */
  #fill(messages: readonly Message[]): FilterResult | undefined {
    let out: Message[] | undefined;
    const decisions: Decision[] = [];
    let index = 0;
    while (index < messages.length) {
      const message = messages[index] as Message; // index < length
      index += 1;
      if (message.role !== 'assistant' || (message.toolCalls?.length ?? 0) === 0) {
        out?.push(message);
        continue;
      }
      const results = resultsFrom(messages, index);
      index += results.length;
      const answered = new Set(results.map((result) => result.toolCallId));
      const run: Message[] = [message, ...results];
      const missing = (message.toolCalls ?? []).filter((call) => call.id !== '' && !answered.has(call.id));
      if (missing.length > 0 && out === undefined) out = messages.slice(0, index - run.length);
      run.push(...this.#backfill(message, { missing, decisions }));
      out?.push(...run);
    }
    return out === undefined ? undefined : { messages: out, decisions };
  }

  /** A result for each call of `message` that had none, each recorded in `decisions`. */
  #backfill(
    message: Message,
    { missing, decisions }: { readonly missing: readonly ToolCall[]; readonly decisions: Decision[] },
  ): readonly Message[] {
    const section = sectionOf(message);
    return missing.map((call) => {
      const filled: Message = {
        id: `${message.id}:backfill:${call.id}`,
        role: 'tool',
        content: this.#text,
        toolCallId: call.id,
        name: call.name,
        ...(section === undefined ? {} : { metadata: { [SECTION_KEY]: section } }),
      };
      decisions.push(
        decision('tool-result-backfill', {
          stage: this.id,
          reason: `call ${call.id} (${call.name}) had no result`,
          messageIds: [filled.id],
          details: { toolCallId: call.id, name: call.name },
        }),
      );
      return filled;
    });
  }
}

/** The run of tool messages that starts at `start`. */
function resultsFrom(messages: readonly Message[], start: number): readonly Message[] {
  let end = start;
  while (messages[end]?.role === 'tool') end += 1;
  return messages.slice(start, end);
}
