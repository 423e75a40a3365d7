import { decision } from '../core/decision.js';
import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { estimatePromptTokens } from './estimate-prompt-tokens.js';

/** Options for {@link SnipHistoryFilter}. */
export type SnipHistoryFilterOptions = {
  /** The stage id. @default 'snip-history' */
  readonly id?: string;
  /** The input budget in tokens; 0 turns the step off (see `resolveInputBudget`). */
  readonly budgetTokens: number;
};

/**
 * Governor step 7: when the prompt (messages + tool definitions) exceeds the budget, keeps every
 * system message and the newest non-system messages that fit what the system messages and tools
 * leave, walking from the newest (which is always kept, even alone over budget). The kept tail is
 * then made legal: it starts at its first user message (or, when it has none, at the last user
 * message of the whole list, which may exceed the budget), and an illegal tool-result prefix is
 * dropped (`findLegalMessageStart`). Steps 8 and 9 repair pairs the cut broke.
 *
 * Unlike nanobot, system messages keep their positions (nanobot moves them all to the front).
 */
export class SnipHistoryFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #budget: number;

  constructor(options: SnipHistoryFilterOptions) {
    this.id = options.id ?? 'snip-history';
    this.#budget = options.budgetTokens;
  }

  apply(messages: readonly Message[], input: BuildInput, context: BuildContext): FilterResult {
    const budget = this.#budget;
    const counter = context.tokenCounter;
    const tools = input.tools ?? [];
    if (messages.length === 0 || !(budget > 0)) return { messages, decisions: [] };
    const total = estimatePromptTokens(counter, { messages, tools });
    if (total <= budget) return { messages, decisions: [] };
    const nonSystem = messages.filter((message) => message.role !== 'system');
    if (nonSystem.length === 0) return { messages, decisions: [] };
    const systemMessages = messages.filter((message) => message.role === 'system');
    const fixed = estimatePromptTokens(counter, { messages: systemMessages, tools });
    const remaining = Math.max(0, budget - fixed);
    const keptFrom = keptStart(nonSystem, { counter, remaining });
    const tail = legalTail(nonSystem, keptFrom);
    const kept = new Set(tail);
    const result = messages.filter((message) => message.role === 'system' || kept.has(message));
    if (result.length === messages.length) return { messages, decisions: [] };
    const dropped = messages.filter((message) => message.role !== 'system' && !kept.has(message));
    return {
      messages: result,
      decisions: [
        decision('message-drop', {
          stage: this.id,
          reason: `prompt of ${total} tokens exceeds the budget of ${budget}; snipped ${dropped.length} older message(s)`,
          messageIds: dropped.map((message) => message.id),
          tokensBefore: total,
          tokensAfter: estimatePromptTokens(counter, { messages: result, tools }),
        }),
      ],
    };
  }
}

function keptStart(
  nonSystem: readonly Message[],
  options: { readonly counter: TokenCounter; readonly remaining: number },
): number {
  let used = 0;
  let start = nonSystem.length;
  for (let index = nonSystem.length - 1; index >= 0; index -= 1) {
    const cost = options.counter.countMessage(nonSystem[index] as Message); // index is in range
    if (start < nonSystem.length && used + cost > options.remaining) break;
    used += cost;
    start = index;
  }
  return start;
}

function legalTail(nonSystem: readonly Message[], keptFrom: number): readonly Message[] {
  let start = -1;
  for (let index = keptFrom; index < nonSystem.length; index += 1) {
    if (nonSystem[index]?.role === 'user') {
      start = index;
      break;
    }
  }
  if (start === -1) {
    for (let index = keptFrom - 1; index >= 0; index -= 1) {
      if (nonSystem[index]?.role === 'user') {
        start = index;
        break;
      }
    }
  }
  const tail = nonSystem.slice(start === -1 ? keptFrom : start);
  return tail.slice(findLegalMessageStart(tail));
}
