import { describe, expect, it } from 'vitest';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { checkEvalInvariants } from './check-eval-invariants.js';
import { compactionStrategy } from './compaction-strategy.js';
import { governorStrategy } from './governor-strategy.js';
import { runEval } from './run-eval.js';
import { EVAL_SUMMARY_LINES } from './scenario-text.js';

const cells = [{ family: 'rules-user', turns: 40, seed: 1, budgetTokens: 6000 }] as const;

describe('checkEvalInvariants', () => {
  it("holds for the compacting default with an adversarial summariser, and fails when the user's messages are not pinned", async () => {
    const result = await runEval({
      strategies: [
        compactionStrategy(),
        compactionStrategy({ id: 'unpinned', compaction: { pinned: { userMessages: false } } }),
      ],
      cells,
      summarisers: [createScriptedSummarizer('adversarial')],
    });
    const failures = checkEvalInvariants(result.runs);
    expect(failures.filter((failure) => failure.strategyId === 'ctxloom-compaction')).toEqual([]);
    expect(
      failures.filter((failure) => failure.strategyId === 'unpinned').map((failure) => failure.invariant),
    ).toEqual(['user-rule-visibility', 'rule-violations']);
    const pinned = result.runs.find((run) => run.strategyId === 'ctxloom-compaction');
    expect(pinned?.metrics.compactions).toBeGreaterThan(1);
    expect(pinned?.metrics.maxCompactionDepth).toBeGreaterThan(1);
  });

  it('fails on a changed history after a failed summary, a bad lineage or coverage, and a compacting default that reports no records', async () => {
    const result = await runEval({
      strategies: [compactionStrategy(), governorStrategy({ id: 'no-records' })],
      cells,
      summarisers: [createScriptedSummarizer('failing')],
    });
    expect(checkEvalInvariants(result.runs)).toEqual([]);
    const [run] = result.runs;
    if (run === undefined) throw new Error('no run');
    expect(run.metrics.failedCompactions).toBeGreaterThan(0);
    const broken = {
      ...run,
      metrics: { ...run.metrics, failedCompactionsThatChanged: 1, lineageValid: 0, coverageExact: 3 },
    };
    expect(checkEvalInvariants([broken]).map((failure) => failure.invariant)).toEqual([
      'lineage-validity',
      'coverage-exactness',
      'history-unchanged-on-failure',
    ]);
    // A default run with a summariser is a compacting one: without records its lineage is not graded.
    const silent = {
      ...run,
      strategyId: 'silent',
      metrics: { ...run.metrics, compactionChecks: 0, lineageValid: 0, coverageExact: 0 },
    };
    expect(checkEvalInvariants([silent]).map((failure) => failure.invariant)).toEqual([
      'lineage-validity',
      'coverage-exactness',
    ]);
  });

  it('applies only to default configurations', async () => {
    const result = await runEval({
      strategies: [
        compactionStrategy({
          id: 'unpinned',
          isDefault: false,
          compaction: { pinned: { userMessages: false } },
        }),
      ],
      cells,
      summarisers: [createScriptedSummarizer('faithful', { keepLines: EVAL_SUMMARY_LINES })],
    });
    expect(checkEvalInvariants(result.runs)).toEqual([]);
  });
});
