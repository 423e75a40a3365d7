import { describe, expect, it } from 'vitest';
import { keepLastStrategy, peerStrategies } from '../../eval/peer-strategies.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { compactionStrategy } from './compaction-strategy.js';
import { runDeferredToolsCheck } from './deferred-tools-check.js';
import { governorStrategy } from './governor-strategy.js';
import { EVAL_SUMMARY_LINES } from './scenario-text.js';

describe('runDeferredToolsCheck', () => {
  it('a tool loaded before a compaction stays callable for ctxloom (carried); a peer that drops the loading message loses it', async () => {
    const runs = await runDeferredToolsCheck({
      strategies: [
        compactionStrategy(),
        governorStrategy(),
        keepLastStrategy(30),
        ...peerStrategies().slice(0, 1),
      ],
      budgets: [6000],
      summarisers: [
        createScriptedSummarizer('faithful', { keepLines: EVAL_SUMMARY_LINES }),
        createScriptedSummarizer('adversarial'),
      ],
    });
    const of = (id: string) => runs.filter((run) => run.strategyId === id);
    for (const run of [...of('ctxloom-compaction'), ...of('ctxloom-governor')]) {
      // The loading messages left the request (summarised or trimmed), yet the tool stayed loaded.
      expect(run.loadingMessageGone).toBeGreaterThan(run.requests / 2);
      expect(run.toolVisible).toBe(run.requests);
      expect(run.visibleAtProbe).toBe(true);
    }
    expect(of('ctxloom-compaction')).toHaveLength(2);
    const [keepLast] = of('keep-last-30');
    expect(keepLast?.loadingMessageGone).toBeGreaterThan(0);
    expect(keepLast?.toolVisible).toBe((keepLast?.requests ?? 0) - (keepLast?.loadingMessageGone ?? 0));
    expect(keepLast?.visibleAtProbe).toBe(false);
  });

  it('refuses an unknown option and a session under 20 turns', async () => {
    await expect(runDeferredToolsCheck({ strategies: [], turn: 3 } as never)).rejects.toThrow(/turn/);
    await expect(runDeferredToolsCheck({ strategies: [], turns: 5 })).rejects.toThrow(/at least 20/);
  });
});
