import type { EvalRunResult } from './run-eval.js';

/** A default-configuration invariant that did not hold in one run. */
export type EvalInvariantFailure = {
  readonly invariant: 'system-rule-visibility' | 'latest-user-request' | 'provider-validity';
  readonly scenarioId: string;
  readonly budgetTokens: number;
  readonly strategyId: string;
  readonly summariserId: string;
  /** The rate measured (the invariant wants 1). */
  readonly value: number;
  /** The run's first problems. */
  readonly problems: readonly string[];
};

/**
 * Checks the invariants of ctxloom's default configurations (strategies with `isDefault`) on every
 * run: every system rule visible at every probe (a system rule is pinned and always fits a budget
 * the build accepted), the turn's user message in every request, every request valid for both
 * providers. Returns the failures, empty when all held.
 */
export function checkEvalInvariants(runs: readonly EvalRunResult[]): readonly EvalInvariantFailure[] {
  const failures: EvalInvariantFailure[] = [];
  for (const run of runs.filter((candidate) => candidate.isDefault)) {
    const { metrics } = run;
    const base = {
      scenarioId: run.scenarioId,
      budgetTokens: run.budgetTokens,
      strategyId: run.strategyId,
      summariserId: run.summariserId,
      problems: metrics.problems.slice(0, 5),
    };
    if (metrics.systemRulesVisible < metrics.systemRuleChecks)
      failures.push({
        ...base,
        invariant: 'system-rule-visibility',
        value: metrics.systemRulesVisible / metrics.systemRuleChecks,
      });
    if (metrics.latestRequestPresent < metrics.latestRequestChecks)
      failures.push({
        ...base,
        invariant: 'latest-user-request',
        value: metrics.latestRequestPresent / metrics.latestRequestChecks,
      });
    if (metrics.validRequests < metrics.requests)
      failures.push({
        ...base,
        invariant: 'provider-validity',
        value: metrics.validRequests / metrics.requests,
      });
  }
  return failures;
}
