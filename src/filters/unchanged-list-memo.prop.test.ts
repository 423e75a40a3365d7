import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { assistant } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import {
  conversationArbitrary,
  malformedConversationArbitrary,
  PLACEHOLDER_ASSISTANT_TEXT,
} from '../testing/arbitraries.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { BackfillToolResultsFilter } from './backfill-tool-results-filter.js';
import { BudgetGuardFilter } from './budget-guard-filter.js';
import { DropOrphanToolResultsFilter } from './drop-orphan-tool-results-filter.js';
import { SnipHistoryFilter } from './snip-history-filter.js';
import { StripMalformedToolCallsFilter } from './strip-malformed-tool-calls-filter.js';
import { StripPlaceholderAssistantsFilter } from './strip-placeholder-assistants-filter.js';
import { ToolResultBudgetFilter } from './tool-result-budget-filter.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-changed-only-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const tokenCounter = withTokenCache(new SimpleTokenCounter());
const context = {
  tokenCounter,
  now: () => 0,
  generateId: () => 'generated',
  debug: false,
  perBuild: <TValue>(_key: object, compute: () => TValue) => compute(),
};

/**
 * The filters that look only at what changed since their last list (or, for the snip, reuse what
 * they counted in it), in governor order (results over 20 characters are offloaded to a workspace
 * both chains share, empty ones get a notice).
 */
function chain(budgetTokens: number): readonly ContextFilter[] {
  return [
    new StripPlaceholderAssistantsFilter(),
    new StripMalformedToolCallsFilter(),
    new DropOrphanToolResultsFilter(),
    new BackfillToolResultsFilter(),
    new ToolResultBudgetFilter({ workspace, maxToolResultChars: 20, sessionKey: 'prop' }),
    new SnipHistoryFilter({ budgetTokens }),
    new BudgetGuardFilter({ budgetTokens }),
  ];
}

type Step = { readonly messages: readonly Message[] } | { readonly error: string };

/** Runs `filters` in order over `messages`: each filter's result (or the error that ended the chain). */
async function run(filters: readonly ContextFilter[], messages: readonly Message[]) {
  const results: { readonly input: readonly Message[]; readonly result: FilterResult | Step }[] = [];
  let list = messages;
  for (const filter of filters) {
    try {
      const result = await filter.apply(list, {}, context);
      results.push({ input: list, result });
      list = result.messages;
    } catch (error) {
      results.push({ input: list, result: { error: String(error) } });
      break;
    }
  }
  return results;
}

/**
 * Lists as a history window gives them turn after turn: the oldest messages cut, the next ones of a
 * conversation appended, and now and then a message copied (same content, new object), replaced by
 * another, inserted, removed or a placeholder added. Messages come from a well-formed conversation
 * and a broken one.
 */
const turns = fc
  .record({
    clean: conversationArbitrary({ maxTextLength: 40 }),
    broken: malformedConversationArbitrary({ maxTextLength: 40 }),
    first: fc.nat(6),
    steps: fc.array(
      fc.record({
        cut: fc.nat(3),
        take: fc.nat(4),
        edit: fc.constantFrom('none', 'none', 'copy', 'swap', 'insert', 'remove', 'placeholder'),
        at: fc.nat(),
      }),
      { minLength: 1, maxLength: 12 },
    ),
    budget: fc.constantFrom(0, 150, 400, 100_000),
  })
  .map(({ clean, broken, first, steps, budget }) => {
    const pool = [...clean, ...broken];
    let cursor = Math.min(first, pool.length);
    let list: Message[] = pool.slice(0, cursor);
    const lists: (readonly Message[])[] = [list];
    for (const step of steps) {
      list = [...list.slice(step.cut), ...pool.slice(cursor, cursor + step.take)];
      cursor += step.take;
      edit(list, { ...step, pool });
      lists.push(list);
    }
    return { lists, budget };
  });

/** Applies one step's edit to `list` in place (a pool message picked by `at`). */
function edit(
  list: Message[],
  step: { readonly edit: string; readonly at: number; readonly pool: readonly Message[] },
): void {
  const at = list.length === 0 ? 0 : step.at % list.length;
  const target = list[at];
  const picked = step.pool[step.at % step.pool.length];
  if (step.edit === 'copy' && target !== undefined) list[at] = { ...target };
  else if (step.edit === 'swap' && picked !== undefined) list[at] = picked;
  else if (step.edit === 'insert' && picked !== undefined) list.splice(at, 0, picked);
  else if (step.edit === 'remove') list.splice(at, 1);
  else if (step.edit === 'placeholder') list.splice(at, 0, assistant(PLACEHOLDER_ASSISTANT_TEXT));
}

describe('filters that look only at what changed', () => {
  test.prop([turns], { numRuns: 300 })(
    'give, turn after turn, what a fresh filter gives: the same messages, the same array when unchanged, the same decisions and errors',
    async ({ lists, budget }) => {
      const warm = chain(budget);
      for (const list of lists) {
        const incremental = await run(warm, list);
        const fresh = await run(chain(budget), list);
        expect(incremental.length).toBe(fresh.length);
        fresh.forEach((expected, index) => {
          const actual = incremental[index];
          expect(actual?.result).toEqual(expected.result);
          if ('messages' in expected.result && actual !== undefined && 'messages' in actual.result) {
            expect(actual.result.messages === actual.input).toBe(expected.result.messages === expected.input);
          }
        });
      }
    },
  );
});
