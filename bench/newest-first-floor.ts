/**
 * The floor the context-build benchmark compares ctxloom with: a newest-first walk over the history
 * with exact, cached counts, stopping at the first message over the budget. Returns the number of
 * messages kept (the first one, the system prompt, always).
 */
import type { Message, TokenCounter } from '../src/index.js';
import { CORPUS_TOOLS } from './agent-corpus.js';
import { ctxloom } from './built.js';

export function newestFirstFloor(
  exact: TokenCounter,
  budgetTokens: number,
): (list: readonly Message[]) => number {
  const counter = new ctxloom.CachedTokenCounter({ counter: exact });
  return (list) => {
    let used = counter.countTools(CORPUS_TOOLS) + counter.countMessage(list[0] as Message);
    let index = list.length - 1;
    for (; index > 0; index -= 1) {
      used += counter.countMessage(list[index] as Message);
      if (used > budgetTokens) break;
    }
    return list.length - index;
  };
}
