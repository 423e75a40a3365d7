import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { roughMessageTokens } from './stage-token-figures.js';

/** Counts like the simple counter and records every message it was asked to count exactly. */
function spyCounter(): TokenCounter & { readonly counted: Set<string> } {
  const inner = new SimpleTokenCounter();
  const counted = new Set<string>();
  return {
    specificationVersion: 'v1',
    id: 'spy',
    kind: 'exact',
    counted,
    countText: (text) => inner.countText(text),
    countMessage(message) {
      counted.add(message.id);
      return inner.countMessage(message);
    },
    countMessages(messages) {
      return messages.reduce((sum, message) => sum + this.countMessage(message), 0);
    },
    countTools: (tools) => inner.countTools(tools),
  };
}

function longHistory(turns: number): readonly Message[] {
  const generateId = createSequentialIdGenerator('h');
  const out: Message[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    out.push(user(`question ${turn} `.repeat(20), { generateId }));
    out.push(assistant(`answer ${turn} `.repeat(40), { generateId }));
  }
  return out;
}

describe('trace token figures', () => {
  it('counts exactly only what the budget walk looked at and what is sent', async () => {
    const tokenCounter = spyCounter();
    const builder = ContextBuilder.forChat({
      systemPrompt: 'Be brief.',
      maxInputTokens: 2_000,
      tokenCounter,
    });
    const history = longHistory(500);
    const { messages, trace } = await builder.build({ history, current: 'next?' });
    const sentIds = new Set(messages.map((message) => message.id));
    const countedHistory = history.filter((message) => tokenCounter.counted.has(message.id));
    const countedButDropped = countedHistory.filter((message) => !sentIds.has(message.id));
    // The newest-first walk stops at the first unit that does not fit: one unit beyond what is kept.
    expect(countedButDropped.length).toBeLessThanOrEqual(2);
    expect(countedHistory.length).toBeLessThan(history.length / 10);

    const historyStage = trace.stages.find((stage) => stage.id === 'history');
    expect(historyStage?.tokensEstimated).toBe(true);
    const budget = trace.stages.find((stage) => stage.id === 'token-budget');
    expect(budget?.tokensEstimated).toBe(true);
    expect(budget?.tokensOut).toBe(trace.totalTokens - trace.toolTokens);
    expect(trace.sections.reduce((sum, row) => sum + row.tokens, 0)).toBe(trace.totalTokens);
    expect(trace.totalTokens).toBe(new SimpleTokenCounter().countMessages(messages));
  });

  it('labels nothing as an estimate when everything was counted', async () => {
    const builder = ContextBuilder.forChat({ systemPrompt: 'Be brief.', maxInputTokens: 100_000 });
    const { trace } = await builder.build({ history: longHistory(3), current: 'hi' });
    expect(trace.stages.every((stage) => stage.tokensEstimated === undefined)).toBe(true);
    const last = trace.stages.at(-1);
    expect(last?.tokensOut).toBe(trace.totalTokens);
  });

  it('estimates from lengths: characters / 4 plus overhead and a flat image cost', () => {
    const generateId = createSequentialIdGenerator('r');
    expect(roughMessageTokens(system('a'.repeat(40), { generateId }))).toBe(14);
    const image = user(
      [
        { type: 'text', text: 'abcd' },
        { type: 'image', url: 'data:image/png;base64,AA==' },
      ],
      { generateId },
    );
    expect(roughMessageTokens(image)).toBe(1 + 4 + 765);
  });
});
