import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { ContextFilter } from '../pipeline/contracts.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { BackfillToolResultsFilter } from './backfill-tool-results-filter.js';
import { BudgetGuardFilter } from './budget-guard-filter.js';
import { DropOrphanToolResultsFilter } from './drop-orphan-tool-results-filter.js';
import { StripMalformedToolCallsFilter } from './strip-malformed-tool-calls-filter.js';
import { StripPlaceholderAssistantsFilter } from './strip-placeholder-assistants-filter.js';
import { ToolResultBudgetFilter } from './tool-result-budget-filter.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-changed-reads-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const context = {
  tokenCounter: withTokenCache(new SimpleTokenCounter()),
  now: () => 0,
  generateId: () => 'generated',
  debug: false,
  perBuild: <TValue>(_key: object, compute: () => TValue) => compute(),
};

/** Messages that record which of them had a field read while `reads` is on. */
function watched(messages: readonly Message[]) {
  const read = new Set<Message>();
  let on = false;
  const list = messages.map((message) => {
    const proxy: Message = new Proxy(message, {
      get(target, key, receiver) {
        if (on) read.add(proxy);
        return Reflect.get(target, key, receiver);
      },
    });
    return proxy;
  });
  return { list, read, watch: (value: boolean) => (on = value) };
}

/** `turns` tool transactions: a question, a call, its result (one in four over the size limit), an answer. */
function session(turns: number): readonly Message[] {
  const generateId = createSequentialIdGenerator('s');
  const out: Message[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const callId = `call_${turn}`;
    out.push(
      user(`question ${turn}`, { generateId }),
      assistant('', { generateId, toolCalls: [{ id: callId, name: 'exec', arguments: '{}' }] }),
      tool(turn % 4 === 0 ? 'x'.repeat(500) : `result ${turn}`, {
        generateId,
        toolCallId: callId,
        name: 'exec',
      }),
      assistant(`answer ${turn}`, { generateId }),
    );
  }
  return out;
}

async function applyAll(filters: readonly ContextFilter[], messages: readonly Message[]) {
  let list = messages;
  for (const filter of filters) list = (await filter.apply(list, {}, context)).messages;
  return list;
}

describe('filters on a list derived from their last one', () => {
  it('read none of the kept messages but the few next to a change', async () => {
    const filters: readonly ContextFilter[] = [
      new StripPlaceholderAssistantsFilter(),
      new StripMalformedToolCallsFilter(),
      new DropOrphanToolResultsFilter(),
      new BackfillToolResultsFilter(),
      new ToolResultBudgetFilter({ workspace, maxToolResultChars: 200, sessionKey: 'reads' }),
      new BudgetGuardFilter({ budgetTokens: 1_000_000 }),
    ];
    const { list, read, watch } = watched(session(100));
    const first = await applyAll(filters, list);
    // The next turn: the window moved by one transaction, one new transaction appended.
    const next = [...list.slice(4), ...session(101).slice(400)];
    watch(true);
    const second = await applyAll(filters, next);
    watch(false);
    // Only the runs at the cut and before the appended messages are looked at again (a role each,
    // and the role of the message after each run); a chain that looked at everything reads 396.
    const keptRead = [...read].filter((message) => next.includes(message));
    expect(keptRead.length).toBeLessThanOrEqual(4);
    // What a fresh chain gives, and the offloaded results are the same objects as last turn.
    expect(second).toEqual(await applyAll(filters.map(fresh), next));
    expect(second.slice(0, -4)).toEqual(first.slice(4));
    for (const [index, message] of second.slice(0, -4).entries()) expect(message).toBe(first[index + 4]);
  });
});

function fresh(filter: ContextFilter): ContextFilter {
  if (filter instanceof ToolResultBudgetFilter)
    return new ToolResultBudgetFilter({ workspace, maxToolResultChars: 200, sessionKey: 'reads' });
  if (filter instanceof BudgetGuardFilter)
    return new BudgetGuardFilter({ budgetTokens: filter.budgetTokens });
  return new (filter.constructor as new () => ContextFilter)();
}
