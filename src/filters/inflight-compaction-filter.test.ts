import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { GOVERNOR_STATE_KEY } from './governor-run-state.js';
import { InflightCompactionFilter } from './inflight-compaction-filter.js';

const counter = new SimpleTokenCounter();
const context = createTestBuildContext({ tokenCounter: counter });
const compacted = (name: string): string =>
  `Error: The previous ${name} result was compacted to fit context because it was too large. Do not repeat the same call unchanged. Retry with a narrower path, query, range, or result limit, use another tool, or tell the user the task cannot fit in the available context.`;

function loop(results: readonly { name: string; size: number }[]): readonly Message[] {
  const messages: Message[] = [system('sys', { id: 's' }), user('go', { id: 'u' })];
  results.forEach((result, index) => {
    const id = `c${index}`;
    messages.push(
      assistant('', { id: `a${index}`, toolCalls: [{ id, name: result.name, arguments: '{}' }] }),
    );
    messages.push(tool('r'.repeat(result.size), { id: `t${index}`, toolCallId: id, name: result.name }));
  });
  return messages;
}

const state = (ids: Set<string>, inflightStartIndex = 2) => ({
  state: { [GOVERNOR_STATE_KEY]: { inflightStartIndex, compactedToolCallIds: ids } },
});

describe('InflightCompactionFilter', () => {
  it('treats nothing as in flight without governor state (a build at the start of a turn)', () => {
    const input = loop([{ name: 'exec', size: 8000 }]);
    const filter = new InflightCompactionFilter({ budgetTokens: 1000 });
    expect(filter.apply(input, {}, context).messages).toBe(input);
    expect(filter.apply(input, state(new Set(), 0), context).messages).not.toBe(input);
  });

  it('does nothing while the prompt fits the budget', () => {
    const input = loop([{ name: 'exec', size: 4000 }]);
    const filter = new InflightCompactionFilter({ budgetTokens: 5000 });
    expect(filter.apply(input, state(new Set()), context).messages).toBe(input);
  });

  it('compacts oldest first down to 85 % and keeps the newest when that is enough', () => {
    const input = loop([
      { name: 'exec', size: 4000 },
      { name: 'grep', size: 4000 },
      { name: 'web_fetch', size: 4000 },
    ]);
    const total = counter.countMessages(input);
    const ids = new Set<string>();
    const filter = new InflightCompactionFilter({ budgetTokens: total - 500 });
    const { messages, decisions } = filter.apply(input, state(ids), context);
    expect(messages[3]?.content).toBe(compacted('exec'));
    expect(messages[5]?.content).toBe('r'.repeat(4000));
    expect(messages[7]?.content).toBe('r'.repeat(4000));
    expect([...ids]).toEqual(['c0']);
    expect(decisions).toEqual([expect.objectContaining({ type: 'tool-result-compact', messageIds: ['t0'] })]);
    expect(counter.countMessages(messages)).toBeLessThanOrEqual(Math.floor((total - 500) * 0.85));
  });

  it('compacts the newest only as a last resort, and never history, short or non-listed results', () => {
    const input = loop([
      { name: 'exec', size: 8000 },
      { name: 'write_file', size: 8000 },
      { name: 'grep', size: 499 },
      { name: 'read_file', size: 8000 },
    ]);
    const ids = new Set<string>();
    const filter = new InflightCompactionFilter({ budgetTokens: 1000 });
    const { messages } = filter.apply(input, state(ids, 4), context);
    expect(messages[3]?.content).toBe('r'.repeat(8000));
    expect(messages[5]?.content).toBe('r'.repeat(8000));
    expect(messages[7]?.content).toBe('r'.repeat(499));
    expect(messages[9]?.content).toBe(compacted('read_file'));
    expect([...ids]).toEqual(['c3']);
  });

  it('re-applies recorded compactions on the next iteration even without pressure', () => {
    const ids = new Set(['c0']);
    const input = loop([
      { name: 'exec', size: 600 },
      { name: 'exec', size: 600 },
    ]);
    const filter = new InflightCompactionFilter({ budgetTokens: 100_000 });
    const { messages, decisions } = filter.apply(input, state(ids), context);
    expect(messages[3]?.content).toBe(compacted('exec'));
    expect(messages[5]?.content).toBe('r'.repeat(600));
    expect(decisions).toHaveLength(1);
    expect(filter.apply(messages, state(ids), context).messages).toBe(messages);
    expect(new InflightCompactionFilter({ budgetTokens: 0 }).apply(input, state(ids), context).messages).toBe(
      input,
    );
  });
});
