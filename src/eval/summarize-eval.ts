import { rate } from './eval-metrics.js';
import type { EvalRunResult } from './run-eval.js';

/** The graded runs of one strategy (with one summariser), summed and turned into rates. */
export type EvalSummaryRow = {
  readonly strategyId: string;
  readonly strategyLabel: string;
  readonly summariserId: string;
  readonly isDefault: boolean;
  readonly runs: number;
  readonly requests: number;
  /** Rates (0–1); `undefined` when nothing was checked. */
  readonly ruleVisibility: number | undefined;
  readonly systemRuleVisibility: number | undefined;
  readonly violationRate: number | undefined;
  readonly latestRequest: number | undefined;
  readonly identifierRetention: number | undefined;
  readonly answerAccuracy: number | undefined;
  readonly recallRate: number | undefined;
  readonly staleRate: number | undefined;
  readonly providerValidity: number | undefined;
  /** Update questions whose request stated the current value last. */
  readonly supersededRate: number | undefined;
  /** Value questions whose value was in the request or the strategy's stored session (reachable by a recall). */
  readonly recallableRate: number | undefined;
  /** Compacting strategies only: requests whose records fit the history, and whose coverage was exact. */
  readonly lineageValidity: number | undefined;
  readonly coverageExactness: number | undefined;
  /** Compaction records made per 100 turns, and the tokens each saved on average. */
  readonly compactionsPer100Turns: number | undefined;
  readonly tokensSavedPerCompaction: number | undefined;
  /** The deepest chain of compactions (a summary of summaries has depth 2). */
  readonly maxCompactionDepth: number;
  /** Compactions whose summariser failed, and the share of those that left history and records unchanged. */
  readonly failedCompactions: number;
  readonly unchangedOnFailure: number | undefined;
  /** Background compactions discarded because their span changed before the swap. */
  readonly discardedCompactions: number;
  readonly tokensSent: number;
  /** Cache-read share of input, weighted by tokens sent. */
  readonly anthropicHitRate: number;
  readonly openaiHitRate: number;
  readonly anthropicCostUsd: number;
  readonly openaiCostUsd: number;
  /** The mean of the quality rates (violations and stale answers counted as their complement). */
  readonly quality: number;
};

/**
 * Sums runs by strategy and summariser, in the order first seen, into one row each: the rates of
 * the graded checks, tokens, weighted cache hit rates and dollar costs, and a quality score (the
 * mean of the rates that had something to check).
 */
export function summarizeEval(runs: readonly EvalRunResult[]): readonly EvalSummaryRow[] {
  const groups = new Map<string, EvalRunResult[]>();
  for (const run of runs) {
    const key = `${run.strategyId}\u0000${run.summariserId}`;
    const group = groups.get(key) ?? [];
    group.push(run);
    groups.set(key, group);
  }
  return [...groups.values()].map(summarizeGroup);
}

function summarizeGroup(group: readonly EvalRunResult[]): EvalSummaryRow {
  const first = group[0] as EvalRunResult; // groups are never empty
  const sum = (pick: (run: EvalRunResult) => number): number =>
    group.reduce((total, run) => total + pick(run), 0);
  const m = (key: keyof EvalRunResult['metrics'] & string): number =>
    sum((run) => {
      const value = run.metrics[key];
      return typeof value === 'number' ? value : 0;
    });
  const tokensSent = m('tokensSent');
  const weighted = (pick: (run: EvalRunResult) => number): number =>
    tokensSent === 0 ? 0 : sum((run) => pick(run) * run.metrics.tokensSent) / tokensSent;
  const rates = {
    ruleVisibility: rate(m('rulesVisible'), m('ruleChecks')),
    systemRuleVisibility: rate(m('systemRulesVisible'), m('systemRuleChecks')),
    violationRate: rate(m('violations'), m('tempts')),
    latestRequest: rate(m('latestRequestPresent'), m('latestRequestChecks')),
    identifierRetention: rate(m('identifiersRetained'), m('identifierChecks')),
    answerAccuracy: rate(m('correctAnswers'), m('questions')),
    recallRate: rate(m('recallCalls'), m('questions')),
    staleRate: rate(m('staleAnswers'), m('updateQuestions')),
    providerValidity: rate(m('validRequests'), m('requests')),
  };
  const isCompacting = m('compactionChecks') > 0;
  const compactions = m('compactions');
  const scored = [
    rates.ruleVisibility,
    complement(rates.violationRate),
    rates.latestRequest,
    rates.identifierRetention,
    rates.answerAccuracy,
    complement(rates.staleRate),
    rates.providerValidity,
  ].filter((value): value is number => value !== undefined);
  return {
    strategyId: first.strategyId,
    strategyLabel: first.strategyLabel,
    summariserId: first.summariserId,
    isDefault: first.isDefault,
    runs: group.length,
    requests: m('requests'),
    ...rates,
    supersededRate: rate(m('updatesSuperseded'), m('updateQuestions')),
    recallableRate: rate(m('recallable'), m('questions')),
    lineageValidity: rate(m('lineageValid'), m('compactionChecks')),
    coverageExactness: rate(m('coverageExact'), m('compactionChecks')),
    compactionsPer100Turns: isCompacting ? (100 * compactions) / m('turns') : undefined,
    tokensSavedPerCompaction: compactions === 0 ? undefined : m('compactionTokensSaved') / compactions,
    maxCompactionDepth: Math.max(0, ...group.map((run) => run.metrics.maxCompactionDepth)),
    failedCompactions: m('failedCompactions'),
    unchangedOnFailure: rate(
      m('failedCompactions') - m('failedCompactionsThatChanged'),
      m('failedCompactions'),
    ),
    discardedCompactions: m('discardedCompactions'),
    tokensSent,
    anthropicHitRate: weighted((run) => run.metrics.anthropic.hitRate),
    openaiHitRate: weighted((run) => run.metrics.openai.hitRate),
    anthropicCostUsd: sum((run) => run.metrics.anthropic.costUsd),
    openaiCostUsd: sum((run) => run.metrics.openai.costUsd),
    quality: scored.length === 0 ? 0 : scored.reduce((total, value) => total + value, 0) / scored.length,
  };
}

function complement(value: number | undefined): number | undefined {
  return value === undefined ? undefined : 1 - value;
}
