import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ContextError } from '../core/errors.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { budgetArbitrary, conversationArbitrary, toolDefinitionsArbitrary } from '../testing/arbitraries.js';
import { ContextBuilder } from './context-builder.js';

const presetOptions = fc.record({
  annotateHistory: fc.boolean(),
  maxMessages: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
  maxTokens: fc.option(budgetArbitrary(4000), { nil: undefined }),
  preferReact: fc.boolean(),
});

describe('chat and ReAct presets, end to end', () => {
  test.prop([conversationArbitrary({ maxSystemMessages: 0 }), toolDefinitionsArbitrary(), presetOptions])(
    'build a legal request that starts with the persona and fits the budget, or fail with the typed error',
    async (history, tools, drawn) => {
      const options = {
        annotateHistory: drawn.annotateHistory,
        ...(drawn.maxMessages === undefined ? {} : { maxMessages: drawn.maxMessages }),
        ...(drawn.maxTokens === undefined ? {} : { maxInputTokens: drawn.maxTokens }),
      };
      const builder = drawn.preferReact ? ContextBuilder.forReact(options) : ContextBuilder.forChat(options);
      const snapshot = structuredClone(history);
      let result: Awaited<ReturnType<typeof builder.build>>;
      try {
        result = await builder.build({ history, tools });
      } catch (error) {
        expect(ContextError.isInstance(error) && error.code).toBe('BUDGET_UNSATISFIABLE');
        expect(drawn.maxTokens).toBeDefined();
        return;
      }
      const { messages, trace } = result;
      expect(history).toEqual(snapshot);
      expect(validateToolCallIntegrity(messages)).toEqual([]);
      expect(messages[0]?.metadata?.['section']).toBe('persona');
      if (drawn.maxTokens !== undefined) expect(trace.totalTokens).toBeLessThanOrEqual(drawn.maxTokens);
      const kept = messages.filter((message) => message.metadata?.['section'] === 'history');
      const order = kept.map((message) => history.findIndex((original) => original.id === message.id));
      expect(order.filter((index) => index >= 0)).toEqual(
        [...order.filter((index) => index >= 0)].sort((a, b) => a - b),
      );
    },
  );
});
