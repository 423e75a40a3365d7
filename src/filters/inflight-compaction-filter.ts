import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Decision, decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
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

/** The keys of {@link InflightCompactionFilterOptions}, for `checkOptions`. @internal */
export const INFLIGHT_COMPACTION_FILTER_OPTION_KEYS = {
  id: true,
  budgetTokens: true,
  compactableTools: true,
  minCompactChars: true,
  targetRatio: true,
  text: true,
} as const satisfies OptionKeys<InflightCompactionFilterOptions>;

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
    checkOptions(options, {
      where: 'new InflightCompactionFilter options',
      known: INFLIGHT_COMPACTION_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'inflight-compaction';
    this.#options = options;
    this.#compactable = new Set(options.compactableTools ?? DEFAULT_COMPACTABLE_TOOLS);
  }

  apply(messages: readonly Message[], input: BuildInput, context: BuildContext): FilterResult {
    const budget = this.#options.budgetTokens;
    if (!(budget > 0)) return { messages, decisions: [] };
    const state = governorRunState(input);
    const compacted = state.compactedToolCallIds ?? new Set<string>();
    // Nothing recorded and nothing in flight (a builder at the start of a turn): there is nothing this
    // step could compact, so the prompt is not counted here (snipping counts what it keeps).
    if (compacted.size === 0 && !this.#hasInflight(messages, state)) return { messages, decisions: [] };
    const edit = new CompactionEdit(messages, {
      stage: this.id,
      counter: context.tokenCounter,
      text: this.#options.text ?? compactionText,
    });
    edit.reapply(recordedCompactions(messages, { compacted, text: edit.text }));
    let estimate = estimatePromptTokens(context.tokenCounter, {
      messages: edit.messages,
      tools: input.tools ?? [],
    });
    if (estimate <= budget) return edit.result();
    const target = Math.floor(budget * (this.#options.targetRatio ?? DEFAULT_COMPACTION_TARGET_RATIO));
    const candidates = this.#candidates(edit.messages, { state, compacted });
    for (const [position, index] of candidates.entries()) {
      if (position === candidates.length - 1 && estimate <= budget) break; // the newest only as a last resort
      const id = edit.messages[index]?.toolCallId ?? '';
      compacted.add(id);
      estimate += edit.compact(
        index,
        `prompt of ${estimate} tokens exceeds the budget of ${budget}; compacted ${id}`,
      );
      if (estimate <= target) break;
    }
    return edit.result();
  }

  /** True when some message of the list is produced during this run (no state: none is). */
  #hasInflight(messages: readonly Message[], state: ReturnType<typeof governorRunState>): boolean {
    const ids = state.inflightMessageIds;
    if (ids === undefined) return (state.inflightStartIndex ?? messages.length) < messages.length;
    if (ids.size === 0) return false;
    for (const message of messages) if (ids.has(message.id)) return true;
    return false;
  }

  #candidates(
    messages: readonly Message[],
    run: { readonly state: ReturnType<typeof governorRunState>; readonly compacted: ReadonlySet<string> },
  ): readonly number[] {
    // Without governor state (a builder at the start of a turn) nothing is in flight: history results
    // are left to snipping and consolidation.
    const start = run.state.inflightStartIndex ?? messages.length;
    const ids = run.state.inflightMessageIds;
    const minChars = this.#options.minCompactChars ?? DEFAULT_MIN_COMPACT_CHARS;
    const indexes: number[] = [];
    for (const [index, message] of messages.entries()) {
      const isInflight = ids === undefined ? index >= start : ids.has(message.id);
      if (isInflight && this.#isCandidate(message, { compacted: run.compacted, minChars }))
        indexes.push(index);
    }
    return indexes;
  }

  #isCandidate(
    message: Message,
    run: { readonly compacted: ReadonlySet<string>; readonly minChars: number },
  ): boolean {
    const callId = message.toolCallId;
    return (
      message.role === 'tool' &&
      callId !== undefined &&
      callId !== '' &&
      !run.compacted.has(callId) &&
      this.#compactable.has(message.name ?? '') &&
      typeof message.content === 'string' &&
      message.content.length >= run.minChars
    );
  }
}

/** Indexes of tool results compacted earlier in the run whose content is not the notice yet. */
function recordedCompactions(
  messages: readonly Message[],
  run: { readonly compacted: ReadonlySet<string>; readonly text: (toolName: string) => string },
): readonly number[] {
  const indexes: number[] = [];
  for (const [index, message] of messages.entries()) {
    const id = message.toolCallId;
    if (message.role !== 'tool' || id === undefined || !run.compacted.has(id)) continue;
    if (message.content !== run.text(message.name ?? 'tool')) indexes.push(index);
  }
  return indexes;
}

/** Copy-on-write replacement of tool results by the compaction notice, with a decision per change. */
class CompactionEdit {
  readonly text: (toolName: string) => string;
  readonly #input: readonly Message[];
  readonly #options: { readonly stage: string; readonly counter: TokenCounter };
  readonly #decisions: Decision[] = [];
  #out: Message[] | undefined;

  constructor(
    input: readonly Message[],
    options: {
      readonly stage: string;
      readonly counter: TokenCounter;
      readonly text: (toolName: string) => string;
    },
  ) {
    this.#input = input;
    this.#options = options;
    this.text = options.text;
  }

  get messages(): readonly Message[] {
    return this.#out ?? this.#input;
  }

  /** Re-applies the compactions recorded earlier in the run, at these indexes of the input. */
  reapply(indexes: readonly number[]): void {
    for (const index of indexes) {
      const id = this.#input[index]?.toolCallId ?? '';
      this.compact(
        index,
        `result of ${id} was compacted earlier in this run; re-applied to keep the boundary stable`,
      );
    }
  }

  /** Replaces the result at `index`; returns the change in tokens (negative when it shrank). */
  compact(index: number, reason: string): number {
    const message = this.messages[index] as Message; // callers pass indexes found in this list
    const next: Message = { ...message, content: this.text(message.name ?? 'tool') };
    this.#out ??= this.#input.slice();
    this.#out[index] = next;
    const before = this.#options.counter.countMessage(message);
    const after = this.#options.counter.countMessage(next);
    this.#decisions.push(
      decision('tool-result-compact', {
        stage: this.#options.stage,
        reason,
        messageIds: [message.id],
        tokensBefore: before,
        tokensAfter: after,
        details: { toolCallId: message.toolCallId, name: message.name },
      }),
    );
    return after - before;
  }

  result(): FilterResult {
    return this.#out === undefined
      ? { messages: this.#input, decisions: [] }
      : { messages: this.#out, decisions: this.#decisions };
  }
}
