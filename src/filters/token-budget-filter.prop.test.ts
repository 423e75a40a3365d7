import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Decision } from '../core/decision.js';
import { BudgetUnsatisfiableError, ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import {
  budgetArbitrary,
  conversationArbitrary,
  malformedConversationArbitrary,
  toolDefinitionsArbitrary,
} from '../testing/arbitraries.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { MaxMessagesFilter } from './max-messages-filter.js';
import { sanitizeToolCallHistory } from './sanitize-tool-call-history.js';
import { TokenBudgetFilter } from './token-budget-filter.js';

const counter = new SimpleTokenCounter();
const context = createTestBuildContext({ tokenCounter: counter });
/** Half absolute budgets, half a fraction (0–110 %) of the request, so most runs trim. */
const budgetChoice = fc.oneof(
  budgetArbitrary(1500).map((absolute) => ({ absolute })),
  fc.integer({ min: 0, max: 1100 }).map((perMille) => ({ perMille })),
);
const ids = (messages: readonly Message[]): readonly string[] => messages.map((message) => message.id);

describe('TokenBudgetFilter properties', () => {
  test.prop([conversationArbitrary(), budgetChoice, toolDefinitionsArbitrary(), fc.boolean()], {
    numRuns: 100,
  })(
    'keeps order, transactions, the pinned prefix and the current message, fits or throws, is idempotent',
    (messages, budget, tools, trimFromStart) => {
      const before = structuredClone(messages);
      const total = counter.countMessages(messages) + counter.countTools(tools);
      const maxTokens = 'absolute' in budget ? budget.absolute : Math.floor((total * budget.perMille) / 1000);
      const filter = new TokenBudgetFilter({ maxTokens, trimFromStart });
      const input = { tools };
      let result: ReturnType<TokenBudgetFilter['apply']>;
      try {
        result = filter.apply(messages, input, context);
      } catch (error) {
        expect(error).toBeInstanceOf(BudgetUnsatisfiableError);
        expect(fixedTokens(messages, tools)).toBeGreaterThan(maxTokens);
        expect(messages).toEqual(before);
        return;
      }
      expect(messages).toEqual(before);
      expectCommonInvariants(messages, result);
      expect(counter.countMessages(result.messages) + counter.countTools(tools)).toBeLessThanOrEqual(
        maxTokens,
      );
      const last = messages.at(-1);
      if (last?.role === 'user') expect(result.messages.at(-1)).toBe(last);
      const again = filter.apply(result.messages, input, context);
      expect(again.messages).toBe(result.messages);
    },
  );
});

describe('sanitize then budget, on broken histories', () => {
  test.prop([malformedConversationArbitrary(), budgetChoice, fc.integer({ min: 1, max: 12 })], {
    numRuns: 100,
  })('gives a legal list that fits, or fails with a typed error', (messages, budget, maxMessages) => {
    let outcome: { readonly fitted: readonly Message[]; readonly maxTokens: number } | undefined;
    try {
      const sanitized = sanitizeToolCallHistory(messages).messages;
      const total = counter.countMessages(sanitized);
      const maxTokens = 'absolute' in budget ? budget.absolute : Math.floor((total * budget.perMille) / 1000);
      const counted = new MaxMessagesFilter({ maxMessages }).apply(sanitized).messages;
      outcome = {
        fitted: new TokenBudgetFilter({ maxTokens }).apply(counted, {}, context).messages,
        maxTokens,
      };
    } catch (error) {
      expect(
        ContextError.isInstance(error) &&
          ['TOOL_CALL_INTEGRITY', 'BUDGET_UNSATISFIABLE'].includes(error.code),
      ).toBe(true);
      return;
    }
    expect(validateToolCallIntegrity(outcome.fitted)).toEqual([]);
    expect(counter.countMessages(outcome.fitted)).toBeLessThanOrEqual(outcome.maxTokens);
  });
});

describe('MaxMessagesFilter properties', () => {
  test.prop([conversationArbitrary(), fc.integer({ min: 1, max: 12 })], { numRuns: 100 })(
    'keeps order, transactions and the pinned prefix, keeps at most N tail messages, is idempotent',
    (messages, maxMessages) => {
      const before = structuredClone(messages);
      const filter = new MaxMessagesFilter({ maxMessages });
      const result = filter.apply(messages);
      expect(messages).toEqual(before);
      expectCommonInvariants(messages, result);
      expect(result.messages.length - pinnedCount(messages)).toBeLessThanOrEqual(maxMessages);
      expect(filter.apply(result.messages).messages).toBe(result.messages);
    },
  );
});

/** The invariants every trimming filter keeps on a legal input. */
function expectCommonInvariants(
  input: readonly Message[],
  result: { readonly messages: readonly Message[]; readonly decisions: readonly Decision[] },
): void {
  expect(validateToolCallIntegrity(input)).toEqual([]);
  expect(validateToolCallIntegrity(result.messages)).toEqual([]);
  expect(isSubsequence(ids(result.messages), ids(input))).toBe(true);
  const pinned = pinnedCount(input);
  expect(result.messages.slice(0, pinned)).toEqual(input.slice(0, pinned));
  const kept = new Set(ids(result.messages));
  const dropped = ids(input).filter((id) => !kept.has(id));
  const explained = new Set(
    result.decisions.flatMap((item) => [...item.messageIds, ...rangeIds(input, item)]),
  );
  expect(dropped.filter((id) => !explained.has(id))).toEqual([]);
  if (dropped.length === 0) expect(result.messages).toBe(input);
}

/** The ids a decision's `messageRange` covers in `input` (first id to last id, `count` of them). */
function rangeIds(input: readonly Message[], item: Decision): readonly string[] {
  const range = item.messageRange;
  if (range === undefined) return [];
  const start = input.findIndex((message) => message.id === range.firstId);
  const covered = ids(input.slice(start, start + range.count));
  expect(covered.at(-1)).toBe(range.lastId);
  return covered;
}

function pinnedCount(messages: readonly Message[]): number {
  const index = messages.findIndex((message) => message.role !== 'system');
  return index < 0 ? messages.length : index;
}

/** Pinned prefix + tool schemas + the current user message: what can never be dropped. */
function fixedTokens(messages: readonly Message[], tools: readonly ToolDefinition[]): number {
  const pinned = pinnedCount(messages);
  const last = messages.at(-1);
  const current =
    last !== undefined && messages.length > pinned && last.role === 'user' ? counter.countMessage(last) : 0;
  return counter.countMessages(messages.slice(0, pinned)) + counter.countTools(tools) + current;
}

function isSubsequence(part: readonly string[], whole: readonly string[]): boolean {
  let index = 0;
  for (const id of whole) if (index < part.length && part[index] === id) index += 1;
  return index === part.length;
}
