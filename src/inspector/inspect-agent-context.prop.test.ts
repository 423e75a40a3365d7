import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ContextBuilder, SimpleTokenCounter } from '../index.js';
import { conversationArbitrary, toolDefinitionsArbitrary } from '../testing/index.js';
import { inspectContext } from './inspect-context.js';

const workspace = path.resolve(import.meta.dirname, '../../examples/workspace');

describe('inspectContext on the agent preset', () => {
  test.prop(
    [
      conversationArbitrary({ maxUnits: 10 }),
      toolDefinitionsArbitrary(),
      fc.integer({ min: 6_000, max: 60_000 }),
      fc.integer({ min: 1, max: 6 }),
    ],
    { numRuns: 40 },
  )(
    'splits the joined system prompt so the categories add up to the build total',
    async (history, tools, window, chars) => {
      const tokenCounter = new SimpleTokenCounter({ charsPerToken: chars });
      const builder = ContextBuilder.forAgent({
        workspace,
        channel: 'cli',
        tokenCounter,
        contextWindowTokens: window,
        maxOutputTokens: 512,
        recentHistory: false,
        // Small windows with one char per token can't hold the system prompt; this property is about the split.
        governor: { onOverBudget: 'keep' },
      });
      const { messages, trace } = await builder.build({ history, tools, current: 'What next?' });
      const inspection = inspectContext({
        messages,
        trace,
        tools,
        tokenCounter,
        contextWindowTokens: window,
        maxOutputTokens: 512,
      });
      const used = inspection.categories.filter((category) => category.kind === 'used');
      expect(used.reduce((sum, category) => sum + category.tokens, 0)).toBe(inspection.usedTokens);
      expect(inspection.usedTokens).toBe(trace.totalTokens);
      const names = used.filter((category) => category.tokens > 0).map((category) => category.name);
      expect(names).toEqual(
        expect.arrayContaining(['Identity', 'AGENTS.md', 'Tool contract', 'Current message']),
      );
      expect(inspection.decisions).toEqual(trace.stages.flatMap((stage) => stage.decisions));
    },
  );
});
