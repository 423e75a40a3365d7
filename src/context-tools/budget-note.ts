import type { ContextUsage } from './context-usage.js';

/**
 * The short budget note for the volatile tail of a request (after the current user message, never in
 * the cached prefix), when the context has passed `ratio` of the usable window: what is left, and that
 * compaction is coming, so the model can save state first. `undefined` below the ratio.
 */
export function budgetNoteText(usage: ContextUsage, ratio: number): string | undefined {
  const usable = usage.contextWindowTokens - usage.maxOutputTokens;
  if (usable <= 0 || usage.usedTokens < usable * ratio) return undefined;
  const share = Math.round((usage.usedTokens / usable) * 100);
  const compaction =
    usage.autoCompactTokens === undefined
      ? 'The context will have to be compacted or reset soon'
      : usage.usedTokens >= usage.autoCompactTokens
        ? 'Automatic compaction is due now'
        : `Automatic compaction starts at ${usage.autoCompactTokens} tokens`;
  return `[Context budget] ${usage.usedTokens} of ${usable} tokens used (${share}%), ${usage.leftTokens} left. ${compaction}: save what must survive (notes, memory) first.`;
}
