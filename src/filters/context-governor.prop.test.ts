import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { isBlankContent } from '../core/content.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import {
  budgetArbitrary,
  conversationArbitrary,
  malformedConversationArbitrary,
  toolDefinitionsArbitrary,
} from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextGovernor } from './context-governor.js';
import { RoleAlternationFilter } from './role-alternation-filter.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-governor-prop-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const counter = new SimpleTokenCounter();
const anyConversation = fc.oneof(
  malformedConversationArbitrary({ maxTextLength: 400 }),
  conversationArbitrary({ maxTextLength: 400 }),
);

describe('ContextGovernor properties', () => {
  test.prop(
    {
      messages: anyConversation,
      tools: toolDefinitionsArbitrary(),
      budget: budgetArbitrary(2000),
      maxToolResultChars: fc.constantFrom(50, 300, 16_000),
      useWorkspace: fc.boolean(),
      inflightStartIndex: fc.nat({ max: 12 }),
    },
    { numRuns: 150 },
  )(
    'output is legal, fits when satisfiable, is idempotent, and leaves the input unchanged',
    async (sample) => {
      const settings = {
        contextWindowTokens: 1_000_000,
        blockLimit: sample.budget,
        maxToolResultChars: sample.maxToolResultChars,
        tokenCounter: counter,
        ...(sample.useWorkspace ? { workspace, sessionKey: 'prop' } : {}),
      };
      const governor = new ContextGovernor({ ...settings, onOverBudget: 'keep' });
      const snapshot = structuredClone(sample.messages);
      const compactedToolCallIds = new Set<string>();
      const options = {
        inflightStartIndex: sample.inflightStartIndex,
        compactedToolCallIds,
        tools: sample.tools,
      };
      const { messages } = await governor.prepareForModel(sample.messages, options);

      expect(validateToolCallIntegrity(messages)).toEqual([]);
      expect(sample.messages).toEqual(snapshot);
      const tokens =
        counter.countMessages(messages) + (sample.tools.length === 0 ? 0 : counter.countTools(sample.tools));
      const isOverBudget = sample.budget > 0 && tokens > sample.budget;
      if (isOverBudget) {
        // Over budget only when unsatisfiable: snipping already reduced the turns to the last user one.
        expect(messages.filter((message) => message.role === 'user').length).toBeLessThanOrEqual(1);
      }
      // By default an unsatisfiable budget is a typed error with the numbers, never a silent overflow.
      const strict = new ContextGovernor(settings).prepareForModel(sample.messages, {
        ...options,
        compactedToolCallIds: new Set(),
      });
      if (isOverBudget) {
        await expect(strict).rejects.toMatchObject({
          code: 'BUDGET_UNSATISFIABLE',
          budget: sample.budget,
          required: tokens,
        });
      } else {
        expect((await strict).messages).toEqual(messages);
      }
      const again = await governor.prepareForModel(messages, { ...options, inflightStartIndex: 0 });
      expect(again.messages).toBe(messages);
    },
  );

  test.prop({ messages: conversationArbitrary({ maxTextLength: 300 }) }, { numRuns: 100 })(
    'a clean history within budget comes back as the same array',
    async ({ messages }) => {
      fc.pre(messages.every((message) => message.role !== 'tool' || !isBlankContent(message.content)));
      const governor = new ContextGovernor({ contextWindowTokens: 1_000_000, tokenCounter: counter });
      expect((await governor.prepareForModel(messages)).messages).toBe(messages);
    },
  );

  test.prop({ messages: anyConversation }, { numRuns: 100 })(
    'role alternation after the governor leaves a strict role sequence',
    async ({ messages }) => {
      const governed = (await new ContextGovernor().prepareForModel(messages)).messages;
      const strict = new RoleAlternationFilter().apply(governed).messages;
      expect(validateToolCallIntegrity(strict)).toEqual([]);
      const roles = strict
        .filter((message: Message) => message.role !== 'system')
        .map((message) => message.role);
      if (roles.length > 0) expect(roles[0]).toBe('user');
      expect(roles.at(-1)).not.toBe('assistant');
      roles.forEach((role, index) => {
        if (role !== 'tool') expect(roles[index + 1]).not.toBe(role);
      });
    },
  );
});
