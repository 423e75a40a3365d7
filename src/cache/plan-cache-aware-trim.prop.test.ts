import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { CacheAwareTrimFilter } from './cache-aware-trim-filter.js';
import { planCacheAwareTrim } from './plan-cache-aware-trim.js';

const tokenCounter = new SimpleTokenCounter();
const turnsArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 800 })), {
  minLength: 1,
  maxLength: 60,
});
const history = (turns: readonly (readonly [number, number])[]): Message[] =>
  turns.flatMap(([question, answer], index) => [
    user(`${index} ${'q'.repeat(question)}`),
    assistant('a'.repeat(answer)),
  ]);

describe('planCacheAwareTrim', () => {
  test.prop([turnsArb, fc.integer({ min: 300, max: 3_000 }), fc.double({ min: 0.2, max: 1, noNaN: true })])(
    'starts at a user message, fits the budget when a single turn does, and moves only when a turn overflows',
    (turns, budgetTokens, lowWater) => {
      const messages = history(turns);
      const plan = planCacheAwareTrim(messages, { budgetTokens, lowWater, tokenCounter });
      expect(messages[plan.startIndex]?.role).toBe('user');
      const lastTurn = tokenCounter.countMessages(messages.slice(-2));
      if (
        turns.every(([q, a]) => tokenCounter.countMessages(history([[q, a]])) <= budgetTokens) &&
        lastTurn <= budgetTokens
      )
        expect(plan.keptTokens).toBeLessThanOrEqual(budgetTokens);
      const before = planCacheAwareTrim(messages.slice(0, -2), { budgetTokens, lowWater, tokenCounter });
      if (!plan.movedThisTurn && messages.length > 2) expect(plan.startIndex).toBe(before.startIndex);
      if (plan.movedThisTurn) expect(plan.cachedPrefixTokensGivenUp).toBeGreaterThan(0);
    },
  );

  it('cuts in steps: over 200 turns the start moves a handful of times, not once per turn', () => {
    const turns = Array.from({ length: 200 }, () => [100, 300] as const);
    let moves = 0;
    for (let end = 1; end <= turns.length; end += 1) {
      if (
        planCacheAwareTrim(history(turns.slice(0, end)), { budgetTokens: 10_000, tokenCounter }).movedThisTurn
      )
        moves += 1;
    }
    const perTurn = planCacheAwareTrim(history(turns), { budgetTokens: 10_000, tokenCounter, lowWater: 1 });
    expect(moves).toBeLessThan(20);
    expect(perTurn.cuts).toBeGreaterThan(moves * 3);
  });

  it('prefers a consolidation point that fits', () => {
    const messages = history(Array.from({ length: 20 }, () => [100, 100] as const));
    const plan = planCacheAwareTrim(messages, {
      budgetTokens: 600,
      lowWater: 0.3,
      tokenCounter,
      isConsolidationPoint: (_message, index) => index % 10 === 0,
    });
    expect(plan.startIndex).toBeGreaterThan(0);
    expect(plan.startIndex % 10).toBe(0);
    expect(plan.atConsolidationPoint).toBe(true);
  });
});

describe('CacheAwareTrimFilter', () => {
  it('drops the history before the cut with a decision naming the cached prefix given up', async () => {
    const messages = [system('persona'), ...history(Array.from({ length: 30 }, () => [100, 100] as const))];
    const filter = new CacheAwareTrimFilter({ maxTokens: 600 });
    const result = await filter.apply(messages, {}, createTestBuildContext({ tokenCounter }));
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[1]?.role).toBe('user');
    expect(tokenCounter.countMessages(result.messages)).toBeLessThanOrEqual(600);
    expect(result.decisions[0]).toMatchObject({ type: 'message-drop', stage: 'cache-aware-trim' });
    expect(result.decisions[0]?.details).toHaveProperty('cachedPrefixTokensGivenUp');
    const again = await filter.apply(result.messages, {}, createTestBuildContext({ tokenCounter }));
    expect(again.messages).toBe(result.messages);
  });
});
