import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextBuilder } from './context-builder.js';

const summarizer = createScriptedSummarizer('faithful');

function chat(turns: number): Message[] {
  return Array.from({ length: turns }, (_, index): Message[] => [
    { id: `u${index}`, role: 'user', content: `Question ${index}: ${'q'.repeat(800)}` },
    { id: `a${index}`, role: 'assistant', content: `Answer ${index}: ${'a'.repeat(800)}` },
  ]).flat();
}

describe('the compaction option of the presets and the governor', () => {
  it('forChat and forReact compact before MaxMessages and TokenBudget trim, and keep applying the record', async () => {
    for (const make of [ContextBuilder.forChat, ContextBuilder.forReact]) {
      const builder = make({
        maxInputTokens: 8000,
        tokenCounter: new SimpleTokenCounter(),
        compaction: { summarizer: createScriptedSummarizer('lossy'), keepRecent: 1000 },
      });
      const history = chat(16);
      const first = await builder.build({ history, current: 'And now?' });
      const decisions = traceDecisions(first.trace);
      const done = decisions.find((entry) => entry.details?.['outcome'] === 'compacted');
      expect(done?.stage).toBe('auto-compaction');
      // Nothing was trimmed: compaction made room first.
      expect(decisions.filter((entry) => entry.type === 'message-drop')).toEqual([]);
      expect(first.messages.some((message) => message.metadata?.['compactionId'] !== undefined)).toBe(true);
      expect(first.messages.at(-1)?.content).toBe('And now?');
      const second = await builder.build({ history: [...history, ...chat(1)], current: 'More?' });
      expect(
        second.messages.filter((message) => message.metadata?.['compactionId'] !== undefined),
      ).toHaveLength(1);
    }
  });

  it('refuses compaction without a budget, an unknown key, and the agent preset’s governor.compaction', () => {
    expect(() => ContextBuilder.forChat({ compaction: { summarizer } })).toThrow(/needs maxInputTokens/);
    expect(() =>
      ContextBuilder.forChat({ maxInputTokens: 100, compaction: { summarizer, trigers: 1 } as never }),
    ).toThrow(/Unknown option "?trigers/);
    expect(
      () =>
        new ContextGovernor({
          contextWindowTokens: 8000,
          compaction: { summarizer, pinned: { tool: [] } } as never,
        }),
    ).toThrow(/Unknown option "?tool/);
    expect(() =>
      ContextBuilder.forAgent({ workspace: '/tmp', governor: { compaction: { summarizer } } as never }),
    ).toThrow(/compaction/);
    expect(
      () => new ContextGovernor({ contextWindowTokens: 8000, compaction: { summarizer, target: 0 } }),
    ).toThrow(/target is 0/);
  });
});
