import type { EvalMetrics } from './eval-metrics.js';
import type { EvalRunResult } from './run-eval.js';

/** The invariants of ctxloom's default configurations. */
export type EvalInvariant =
  | 'system-rule-visibility'
  | 'user-rule-visibility'
  | 'rule-violations'
  | 'latest-user-request'
  | 'provider-validity'
  | 'lineage-validity'
  | 'coverage-exactness'
  | 'history-unchanged-on-failure';

/** A default-configuration invariant that did not hold in one run. */
export type EvalInvariantFailure = {
  readonly invariant: EvalInvariant;
  readonly scenarioId: string;
  readonly budgetTokens: number;
  readonly strategyId: string;
  readonly summariserId: string;
  /** The rate measured (the invariant wants 1, or 0 for `rule-violations`). */
  readonly value: number;
  /** The run's first problems. */
  readonly problems: readonly string[];
};

/** One invariant: the share that must be 1 (`held` of `checked`), or 0 for an `isZero` count. */
type Check = {
  readonly invariant: EvalInvariant;
  readonly held: number;
  readonly checked: number;
  readonly isZero?: boolean;
};

/**
 * Checks the invariants of ctxloom's default configurations (strategies with `isDefault`) on every
 * run. For every default: every system rule visible at every probe, the turn's user message in every
 * request, every request valid for both providers. For a default that compacts (it runs with a
 * summariser and keeps records): every request's records fitting the history and covering every
 * message exactly once, and every failed summary leaving history and records unchanged; and in a run
 * where no summary failed (the adversarial summariser included), every rule the user gave in a
 * message visible at every probe and no forbidden call on a system or user rule, since those stay
 * pinned whatever the summary says. Returns the failures, empty when all held.
 */
export function checkEvalInvariants(runs: readonly EvalRunResult[]): readonly EvalInvariantFailure[] {
  const failures: EvalInvariantFailure[] = [];
  for (const run of runs.filter((candidate) => candidate.isDefault)) {
    for (const check of checksOf(run.metrics, { isCompacting: run.summariserId !== 'none' })) {
      const isHeld = check.isZero === true ? check.held === 0 : check.held >= check.checked;
      if (isHeld) continue;
      failures.push({
        invariant: check.invariant,
        scenarioId: run.scenarioId,
        budgetTokens: run.budgetTokens,
        strategyId: run.strategyId,
        summariserId: run.summariserId,
        value: check.isZero === true ? check.held / Math.max(1, check.checked) : check.held / check.checked,
        problems: run.metrics.problems.slice(0, 5),
      });
    }
  }
  return failures;
}

function checksOf(metrics: EvalMetrics, run: { readonly isCompacting: boolean }): readonly Check[] {
  const always: Check[] = [
    {
      invariant: 'system-rule-visibility',
      held: metrics.systemRulesVisible,
      checked: metrics.systemRuleChecks,
    },
    {
      invariant: 'latest-user-request',
      held: metrics.latestRequestPresent,
      checked: metrics.latestRequestChecks,
    },
    { invariant: 'provider-validity', held: metrics.validRequests, checked: metrics.requests },
  ];
  if (!run.isCompacting) return always;
  const sent = metrics.requests - metrics.failedRequests;
  // Pins are compaction's promise: where a summary failed, the history stays as it was and only the
  // governor's guarantees (above) apply.
  const rulesPinned = metrics.failedCompactions === 0;
  const pinnedRules: readonly Check[] = [
    { invariant: 'user-rule-visibility', held: metrics.userRulesVisible, checked: metrics.userRuleChecks },
    {
      invariant: 'rule-violations',
      held: metrics.userOrSystemViolations,
      checked: metrics.userOrSystemTempts,
      isZero: true,
    },
  ];
  return [
    ...always,
    ...(rulesPinned ? pinnedRules : []),
    // Every request sent is graded: a compacting default that reports no records fails these.
    { invariant: 'lineage-validity', held: metrics.lineageValid, checked: sent },
    { invariant: 'coverage-exactness', held: metrics.coverageExact, checked: sent },
    {
      invariant: 'history-unchanged-on-failure',
      held: metrics.failedCompactionsThatChanged,
      checked: metrics.failedCompactions,
      isZero: true,
    },
  ];
}
