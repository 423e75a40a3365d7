import { EstimatingTokenCounter } from './estimating-token-counter.js';
import { ScaledTokenCounter } from './scaled-token-counter.js';
import { resolveTiktokenEncoding, type TiktokenEncodingName } from './tiktoken-encoding.js';
import type { TokenCounter } from './token-counter.js';

/**
 * The margin a Claude model's counts get by default. The default estimator follows OpenAI's o200k
 * encoding (within 2.6% of it on the project's corpus), but Claude's tokenizer is not public and the
 * prompt tokens Anthropic billed for real agent requests were 1.12–1.22× that estimate (measured for
 * issue #26); 1.25 is above the highest ratio seen, so a request the budget lets through fits Claude's
 * window. `UsageCalibratedTokenCounter` (`ctxloom/cache`) learns the real ratio from reported usage.
 */
export const CLAUDE_TOKEN_FACTOR = 1.25;

/** Whether a model id names a Claude model (`/claude/i`: `claude-sonnet-4-5`, `anthropic/claude-3-haiku`, …). */
export function isClaudeModel(model: string | undefined): boolean {
  return model !== undefined && /claude/i.test(model);
}

/**
 * The default counter for a model: for a Claude model, the estimator scaled by
 * {@link CLAUDE_TOKEN_FACTOR} (`scaled(1.25):estimate:o200k` in traces), so budgets count Claude
 * conservatively; for any other model (or none), the `EstimatingTokenCounter`, which for an OpenAI
 * model (GPT-4o, 4.1, 5, o-series, GPT-4, 3.5) confirms a budget refusal with the exact tiktoken count.
 * @example const tokenCounter = tokenCounterForModel('claude-sonnet-4-5');
 */
export function tokenCounterForModel(model: string | undefined): TokenCounter {
  if (isClaudeModel(model))
    return new ScaledTokenCounter(new EstimatingTokenCounter(), { factor: CLAUDE_TOKEN_FACTOR });
  const exactEncoding = openAIEncodingOf(model);
  return new EstimatingTokenCounter(exactEncoding === undefined ? {} : { exactEncoding });
}

function openAIEncodingOf(model: string | undefined): TiktokenEncodingName | undefined {
  if (model === undefined) return undefined;
  try {
    return resolveTiktokenEncoding(model);
  } catch {
    // Not an OpenAI model: no exact counter to confirm a refusal with.
    return undefined;
  }
}
