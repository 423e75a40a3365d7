import { type Decision, decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { estimatePromptTokens } from './estimate-prompt-tokens.js';
import {
  compactionText,
  DEFAULT_COMPACTABLE_TOOLS,
  DEFAULT_COMPACTION_TARGET_RATIO,
  DEFAULT_MIN_COMPACT_CHARS,
} from './governor-constants.js';
import { governorRunState } from './governor-run-state.js';

/** Options for {@link InflightCompactionFilter}. */
export type InflightCompactionFilterOptions = {
  /** The stage id. @default 'inflight-compaction' */
  readonly id?: string;
  /** The input budget in tokens; 0 turns the step off (see `resolveInputBudget`). */
  readonly budgetTokens: number;
  /** Tools whose results may be compacted. @default nanobot's list (read_file, exec, grep, …) */
  readonly compactableTools?: readonly string[];
  /** Results shorter than this many characters are never compacted. @default 500 */
  readonly minCompactChars?: number;
  /** Compaction stops at or below `floor(budget × ratio)`. @default 0.85 */
  readonly targetRatio?: number;
  /** The replacement text for a tool. @default nanobot's actionable compaction notice */
  readonly text?: (toolName: string) => string;
};

/**
 * Governor step 6: under pressure only, replaces this run's large tool results (from
 * `inflightStartIndex`, or the ids in `inflightMessageIds`, of the governor state) with an
 * actionable compaction notice, oldest first, until the estimate is at or below 85 % of the budget.
 * Ids already compacted in this run (`compactedToolCallIds`, kept by the caller) are re-applied first
 * so the compaction boundary stays stable across loop iterations. The newest candidate is compacted
 * only as a last resort (when the prompt still exceeds the budget). History results are never touched.
 */
export class InflightCompactionFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #options: InflightCompactionFilterOptions;
  readonly #compactable: ReadonlySet<string>;

  constructor(options: InflightCompactionFilterOptions) {
    this.id = options.id ?? 'inflight-compaction';
    this.#options = options;
    this.#compactable = new Set(options.compactableTools ?? DEFAULT_COMPACTABLE_TOOLS);
  }

  apply(messages: readonly Message[], input: BuildInput, context: BuildContext): FilterResult {
    const budget = this.#options.budgetTokens;
    if (!(budget > 0)) return { messages, decisions: [] };
    const state = governorRunState(input);
    const compacted = state.compactedToolCallIds ?? new Set<string>();
    const counter = context.tokenCounter;
    const text = this.#options.text ?? compactionText;
    const decisions: Decision[] = [];
    let out: Message[] | undefined;
    const replace = (index: number, reason: string): number => {
      const message = (out ?? messages)[index] as Message; // index comes from a scan of the list
      const next: Message = { ...message, content: text(message.name ?? 'tool') };
      out ??= messages.slice();
      out[index] = next;
      const before = counter.countMessage(message);
      const after = counter.countMessage(next);
      decisions.push(
        decision('tool-result-compact', {
          stage: this.id,
          reason,
          messageIds: [message.id],
          tokensBefore: before,
          tokensAfter: after,
          details: { toolCallId: message.toolCallId, name: message.name },
        }),
      );
      return after - before;
    };
    for (const [index, message] of messages.entries()) {
      const id = message.toolCallId;
      if (message.role !== 'tool' || id === undefined || !compacted.has(id)) continue;
      if (message.content === text(message.name ?? 'tool')) continue;
      replace(
        index,
        `result of ${id} was compacted earlier in this run; re-applied to keep the boundary stable`,
      );
    }
    let estimate = estimatePromptTokens(counter, { messages: out ?? messages, tools: input.tools ?? [] });
    if (estimate <= budget) return this.#result(messages, out, decisions);
    const target = Math.floor(budget * (this.#options.targetRatio ?? DEFAULT_COMPACTION_TARGET_RATIO));
    const candidates = this.#candidates(out ?? messages, { state, compacted });
    for (const [position, index] of candidates.entries()) {
      const isNewest = position === candidates.length - 1;
      if (isNewest && estimate <= budget) break;
      const message = (out ?? messages)[index] as Message; // candidates index the list
      const id = message.toolCallId ?? '';
      compacted.add(id);
      estimate += replace(
        index,
        `prompt of ${estimate} tokens exceeds the budget of ${budget}; compacted ${id}`,
      );
      if (estimate <= target) break;
    }
    return this.#result(messages, out, decisions);
  }

  #candidates(
    messages: readonly Message[],
    run: { readonly state: ReturnType<typeof governorRunState>; readonly compacted: ReadonlySet<string> },
  ): readonly number[] {
    const start = run.state.inflightStartIndex ?? 0;
    const ids = run.state.inflightMessageIds;
    const minChars = this.#options.minCompactChars ?? DEFAULT_MIN_COMPACT_CHARS;
    const indexes: number[] = [];
    for (const [index, message] of messages.entries()) {
      const isInflight = ids === undefined ? index >= start : ids.has(message.id);
      if (!isInflight || message.role !== 'tool') continue;
      const callId = message.toolCallId;
      if (callId === undefined || callId === '' || run.compacted.has(callId)) continue;
      if (!this.#compactable.has(message.name ?? '')) continue;
      if (typeof message.content !== 'string' || message.content.length < minChars) continue;
      indexes.push(index);
    }
    return indexes;
  }

  #result(messages: readonly Message[], out: Message[] | undefined, decisions: Decision[]): FilterResult {
    return out === undefined ? { messages, decisions: [] } : { messages: out, decisions };
  }
}
