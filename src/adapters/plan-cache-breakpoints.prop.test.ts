import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicTool } from './anthropic-types.js';
import { type AnthropicCacheableRequest, planCacheBreakpoints } from './plan-cache-breakpoints.js';
import { prefixTokens } from './prompt-cache-request.js';
import { anthropicPromptCacheRequest } from './to-prompt-cache-request.js';

const tokenCounter = new SimpleTokenCounter();
const marker = { type: 'ephemeral' } as const;

const textArb = fc.integer({ min: 0, max: 3_000 }).map((length) => 'w '.repeat(length / 2).trim() || 'w');
const blockArb = (marked: boolean): fc.Arbitrary<AnthropicContentBlock> =>
  fc
    .tuple(textArb, fc.boolean())
    .map(([text, mark]) =>
      marked && mark ? { type: 'text', text, cache_control: marker } : { type: 'text', text },
    );
const turnArb = (role: 'user' | 'assistant', marked: boolean): fc.Arbitrary<AnthropicMessage> =>
  fc.array(blockArb(marked), { minLength: 1, maxLength: 4 }).map((content) => ({ role, content }));
const messagesArb = (marked: boolean): fc.Arbitrary<AnthropicMessage[]> =>
  fc.integer({ min: 0, max: 6 }).chain((pairs) =>
    fc
      .tuple(
        fc.array(fc.tuple(turnArb('user', marked), turnArb('assistant', marked)), {
          minLength: pairs,
          maxLength: pairs,
        }),
        turnArb('user', marked),
      )
      .map(([history, last]) => [...history.flat(), last]),
  );
const toolsArb: fc.Arbitrary<AnthropicTool[]> = fc.array(
  fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), textArb).map(([name, description]) => ({
    name,
    description,
    input_schema: { type: 'object' },
  })),
  { maxLength: 3 },
);
const requestArb = (marked: boolean): fc.Arbitrary<AnthropicCacheableRequest> =>
  fc.record({
    tools: fc.option(toolsArb, { nil: undefined }),
    system: fc.option(
      fc.oneof(
        textArb,
        fc.array(
          blockArb(marked).map((block) => ({
            ...block,
            type: 'text' as const,
            text: (block as { text: string }).text,
          })),
          { minLength: 1, maxLength: 3 },
        ),
      ),
      { nil: undefined },
    ),
    messages: messagesArb(marked),
  });
const minArb = fc.constantFrom(0, 100, 1_024, 4_096);

function markedBlocks(request: AnthropicCacheableRequest): number[] {
  const described = anthropicPromptCacheRequest(request, { tokenCounter });
  return described.blocks.flatMap((block, index) => (block.cacheControl === undefined ? [] : [index]));
}

describe('planCacheBreakpoints', () => {
  test.prop([requestArb(true), minArb])(
    'never leaves more than 4 markers, counting those already present',
    (request, minTokens) => {
      const existing = markedBlocks(request).length;
      const planned = planCacheBreakpoints(request, { minTokens, tokenCounter });
      const total = markedBlocks(planned).length;
      expect(total).toBe(existing + planned.plan.markers.length);
      expect(total).toBeLessThanOrEqual(Math.max(4, existing));
      if (existing >= 4) expect(planned.plan.markers).toEqual([]);
    },
  );

  test.prop([requestArb(true), minArb])(
    'never places a marker on a prefix below the minimum length',
    (request, minTokens) => {
      const planned = planCacheBreakpoints(request, { minTokens, tokenCounter });
      const totals = prefixTokens(anthropicPromptCacheRequest(planned, { tokenCounter }));
      for (const placed of planned.plan.markers) {
        expect(placed.prefixTokens).toBeGreaterThanOrEqual(minTokens);
        expect(totals[placed.block]).toBe(placed.prefixTokens);
      }
    },
  );

  test.prop([requestArb(false), turnArb('assistant', false), turnArb('user', false), minArb, fc.boolean()])(
    'keeps the markers of the shared prefix on the next request of the conversation',
    (first, reply, next, minTokens, passPrevious) => {
      const a = planCacheBreakpoints(first, { minTokens, tokenCounter });
      const secondRequest = { ...first, messages: [...first.messages, reply, next] };
      const b = planCacheBreakpoints(secondRequest, {
        minTokens,
        tokenCounter,
        ...(passPrevious ? { previous: a.plan } : {}),
      });
      const sharedBlocks = anthropicPromptCacheRequest(first, { tokenCounter }).blocks.length;
      const before = new Set(a.plan.markers.map((placed) => placed.block));
      const after = new Set(b.plan.markers.map((placed) => placed.block));
      // The newest anchor of the previous request (its tail) and its stable anchors are kept ...
      for (const placed of a.plan.markers)
        expect(after.has(placed.block) || placed.kind === 'carried' || placed.kind === 'spaced').toBe(true);
      // ... and nothing new is marked inside the shared prefix but spare-slot spacing.
      for (const placed of b.plan.markers)
        if (placed.block < sharedBlocks && placed.kind !== 'spaced')
          expect(before.has(placed.block)).toBe(true);
    },
  );

  test.prop([requestArb(false), minArb])(
    'spaces spare markers at most 20 blocks apart back from the tail',
    (request, minTokens) => {
      const planned = planCacheBreakpoints(request, { minTokens, tokenCounter });
      const spaced = planned.plan.markers.filter((placed) => placed.kind === 'spaced');
      const lowest = Math.min(...spaced.map((placed) => placed.block));
      // From the tail down to the lowest spaced marker, each marker's 20-block lookback reaches the next.
      const chain = planned.plan.markers
        .filter((placed) => placed.area === 'messages' && placed.block >= lowest)
        .map((placed) => placed.block)
        .sort((a, b) => b - a);
      for (let index = 1; index < chain.length; index += 1)
        expect((chain[index - 1] ?? 0) - (chain[index] ?? 0)).toBeLessThanOrEqual(20);
    },
  );
});
