import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import { findLegalMessageStart } from '../core/find-legal-message-start.js';
import type { Message } from '../core/message.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { SnipHistoryFilter } from './snip-history-filter.js';

const counter = new SimpleTokenCounter();
const context = createTestBuildContext({ tokenCounter: counter });
const text = (n: number): string => 'w'.repeat(n * 4);

describe('SnipHistoryFilter', () => {
  const history: readonly Message[] = [
    system(text(10), { id: 's' }),
    user(text(100), { id: 'u1' }),
    assistant(text(100), { id: 'a1' }),
    user(text(10), { id: 'u2' }),
    assistant('', { id: 'a2', toolCalls: [{ id: 'c', name: 'exec', arguments: '{}' }] }),
    tool(text(10), { id: 't', toolCallId: 'c', name: 'exec' }),
    assistant(text(10), { id: 'a3' }),
  ];

  it('keeps system messages and the newest tail that fits, anchored on a user turn', () => {
    const budget = counter.countMessages(history) - 50;
    const { messages, decisions } = new SnipHistoryFilter({ budgetTokens: budget }).apply(
      history,
      {},
      context,
    );
    expect(messages.map((message) => message.id)).toEqual(['s', 'u2', 'a2', 't', 'a3']);
    expect(decisions[0]).toMatchObject({ type: 'message-drop', messageIds: ['u1', 'a1'] });
    // What is kept, counted from the walk's figures (not by counting the kept list again).
    expect(decisions[0]?.tokensAfter).toBe(counter.countMessages(messages));
  });

  it('falls back to the last user turn when the kept tail has none, and always keeps the newest', () => {
    const { messages, decisions } = new SnipHistoryFilter({ budgetTokens: 20 }).apply(history, {}, context);
    expect(messages.map((message) => message.id)).toEqual(['s', 'u2', 'a2', 't', 'a3']);
    expect(decisions[0]?.tokensAfter).toBe(counter.countMessages(messages));
    const noUser = [
      system('x', { id: 's' }),
      assistant(text(50), { id: 'a' }),
      assistant(text(50), { id: 'b' }),
    ];
    expect(
      new SnipHistoryFilter({ budgetTokens: 10 }).apply(noUser, {}, context).messages.map((m) => m.id),
    ).toEqual(['s', 'b']);
  });

  it('keeps a system message after the first non-system one where it is', () => {
    const late = [...history.slice(0, 3), system(text(10), { id: 's2' }), ...history.slice(3)];
    const budget = counter.countMessages(late) - 50;
    const { messages } = new SnipHistoryFilter({ budgetTokens: budget }).apply(late, {}, context);
    expect(messages.map((message) => message.id)).toEqual(['s', 's2', 'u2', 'a2', 't', 'a3']);
  });

  it('is off without a budget and returns the same array when the prompt fits', () => {
    expect(new SnipHistoryFilter({ budgetTokens: 0 }).apply(history, {}, context).messages).toBe(history);
    expect(new SnipHistoryFilter({ budgetTokens: 100_000 }).apply(history, {}, context).messages).toBe(
      history,
    );
  });

  it('counts tool definitions against the budget', () => {
    const tools = [{ name: 'exec', description: text(200) }];
    const budget = counter.countMessages(history) + 10;
    expect(new SnipHistoryFilter({ budgetTokens: budget }).apply(history, {}, context).messages).toBe(
      history,
    );
    expect(
      new SnipHistoryFilter({ budgetTokens: budget }).apply(history, { tools }, context).messages,
    ).not.toBe(history);
  });
});

describe('findLegalMessageStart', () => {
  it('moves the start past tool results whose call was not declared in the slice', () => {
    const slice: readonly Message[] = [
      tool('x', { id: 't0', toolCallId: 'gone' }),
      user('hi', { id: 'u' }),
      assistant('', { id: 'a', toolCalls: [{ id: 'k', name: 'exec', arguments: '{}' }] }),
      tool('y', { id: 't1', toolCallId: 'k' }),
    ];
    expect(findLegalMessageStart(slice)).toBe(1);
    expect(findLegalMessageStart(slice.slice(1))).toBe(0);
    expect(findLegalMessageStart([tool('z', { id: 'only', toolCallId: 'q' })])).toBe(1);
  });
});
