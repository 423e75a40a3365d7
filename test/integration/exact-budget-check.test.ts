import { describe, expect, it } from 'vitest';
import {
  BudgetUnsatisfiableError,
  ContextGovernor,
  EstimatingTokenCounter,
  type Message,
  msg,
} from '../../src/index.js';
import { TiktokenTokenCounter, tokenCounterForModel } from '../../src/tokens/index.js';

const WINDOW = { contextWindowTokens: 8_192, maxOutputTokens: 2_048, safetyBufferTokens: 0 };
const SENTENCE = 'the context builder keeps the system prompt stable while the history grows ';

/**
 * The smallest legal request is the system prompt and the current message (nothing else to cut);
 * English prose is where the estimator runs high, so a prompt can be over the budget on the
 * estimate and under it exactly.
 */
function request(repeats: number): readonly Message[] {
  return [msg.system(SENTENCE.repeat(repeats), { id: 's' }), msg.user('Go on.', { id: 'u' })];
}

describe('the budget guard confirms a refusal with the exact count', async () => {
  const budget = new ContextGovernor(WINDOW).budgetTokens;
  const estimate = new EstimatingTokenCounter();
  const exact = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
  let repeats = 1;
  while (estimate.countMessages(request(repeats)) <= budget) repeats += 1;
  const between = request(repeats);

  it('is a request over the budget on the estimate and within it exactly', () => {
    expect(estimate.countMessages(between)).toBeGreaterThan(budget);
    expect(exact.countMessages(between)).toBeLessThanOrEqual(budget);
  });

  it('sends it for an OpenAI model, whose exact counter exists', async () => {
    const governor = new ContextGovernor({ ...WINDOW, tokenCounter: tokenCounterForModel('gpt-4o') });
    const { messages } = await governor.prepareForModel(between);
    expect(messages.map((message) => message.id)).toEqual(['s', 'u']);
  });

  it('still refuses it on the estimate when no exact counter exists for the model', async () => {
    for (const tokenCounter of [new EstimatingTokenCounter(), tokenCounterForModel('llama-3.1-70b')]) {
      const governor = new ContextGovernor({ ...WINDOW, tokenCounter });
      await expect(governor.prepareForModel(between)).rejects.toBeInstanceOf(BudgetUnsatisfiableError);
    }
  });

  it('refuses with the exact numbers when the exact count is over too', async () => {
    let over = repeats;
    while (exact.countMessages(request(over)) <= budget) over += 1;
    const governor = new ContextGovernor({ ...WINDOW, tokenCounter: tokenCounterForModel('gpt-4o') });
    const error = await governor.prepareForModel(request(over)).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(BudgetUnsatisfiableError);
    const refusal = error as BudgetUnsatisfiableError;
    expect(refusal.required).toBe(exact.countMessages(request(over)));
    expect(refusal.message).toContain('(exact, tiktoken:o200k_base)');
    expect(refusal.message).toContain(`budget is ${budget.toLocaleString('en-US')}`);
  });
});
