import type { Message } from '../core/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/**
 * nanobot's `pick_consolidation_boundary`: walking from `start`, every user message after `start` is
 * a candidate boundary (so a chunk always ends right before a user turn and never splits a tool
 * transaction); returns the first candidate whose preceding messages add up to at least
 * `tokensNeeded`, else the last candidate, else `undefined` (no safe boundary).
 */
export function pickConsolidationBoundary(
  messages: readonly Message[],
  options: { readonly start: number; readonly tokensNeeded: number; readonly tokenCounter: TokenCounter },
): number | undefined {
  let sum = 0;
  let last: number | undefined;
  for (let index = options.start; index < messages.length; index += 1) {
    const message = messages[index];
    if (message === undefined) break;
    if (index > options.start && message.role === 'user') {
      if (sum >= options.tokensNeeded) return index;
      last = index;
    }
    sum += options.tokenCounter.countMessage(message);
  }
  return last;
}
