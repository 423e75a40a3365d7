/** Cache and cost figures of one simulated provider over a run. */
export type EvalProviderCost = {
  /** Share of input tokens read from the cache (0–1). */
  readonly hitRate: number;
  /** Input cost in US dollars with caching. */
  readonly costUsd: number;
  /** Input cost in US dollars without any cache. */
  readonly costUsdWithoutCache: number;
};

/**
 * The graded counts of one run (one scenario × strategy × summariser at one budget). Rates are
 * ratios of these counts; a check with no occasions is reported as not applicable, never as 100%.
 */
export type EvalMetrics = {
  /** Model calls made. */
  readonly requests: number;
  /** Calls whose strategy threw instead of returning a request (nothing was sent). */
  readonly failedRequests: number;
  /** (rule, probe call) pairs checked: every rule introduced before a probe, at that probe. */
  readonly ruleChecks: number;
  readonly rulesVisible: number;
  /** The subset of `ruleChecks` whose rule is a system rule. */
  readonly systemRuleChecks: number;
  readonly systemRulesVisible: number;
  /** The subset of `ruleChecks` whose rule the user gave in a message. */
  readonly userRuleChecks: number;
  readonly userRulesVisible: number;
  /** Tempting requests, and the forbidden calls the agent made on them. */
  readonly tempts: number;
  readonly violations: number;
  /** The subset whose rule came from the system prompt or a user message (what a default pins). */
  readonly userOrSystemTempts: number;
  readonly userOrSystemViolations: number;
  /** Calls checked for the turn's user message, and those that carried it verbatim. */
  readonly latestRequestChecks: number;
  readonly latestRequestPresent: number;
  /** Identifier questions, and those whose identifier was visible verbatim. */
  readonly identifierChecks: number;
  readonly identifiersRetained: number;
  /** Value questions (facts, updates, identifiers), answered right, and `recall` calls instead of an answer. */
  readonly questions: number;
  readonly correctAnswers: number;
  readonly recallCalls: number;
  /** Questions about an updated value, and those answered with a superseded value. */
  readonly updateQuestions: number;
  readonly staleAnswers: number;
  /** Update questions whose request states the current value last (every stale value superseded). */
  readonly updatesSuperseded: number;
  /**
   * Value questions whose value is in the request or in the session the strategy keeps (raw messages
   * beside compaction records), so a `recall` tool could find it. No recall tool exists yet: this
   * grades reachability in the store, not a recall made within k calls.
   */
  readonly recallable: number;
  /** Turns run. */
  readonly turns: number;
  /** Requests of a compacting strategy graded for lineage and coverage, and those that held. */
  readonly compactionChecks: number;
  readonly lineageValid: number;
  readonly coverageExact: number;
  /** Compaction records made, the tokens they saved (before − after, summed), and the deepest chain. */
  readonly compactions: number;
  readonly compactionTokensSaved: number;
  readonly maxCompactionDepth: number;
  /** Compactions whose summariser failed, and those after which the history or records changed. */
  readonly failedCompactions: number;
  readonly failedCompactionsThatChanged: number;
  /** Background compactions discarded because their span changed meanwhile. */
  readonly discardedCompactions: number;
  /** Requests a provider would accept (tool-call integrity, role order, adapters, cache rules). */
  readonly validRequests: number;
  /** The first problems found (at most 20), as `turn.step: problem`. */
  readonly problems: readonly string[];
  /** Input tokens sent (the estimate of every request, tool schemas included). */
  readonly tokensSent: number;
  readonly anthropic: EvalProviderCost;
  readonly openai: EvalProviderCost;
};

/** A ratio, or `undefined` when there was nothing to check. */
export function rate(part: number, whole: number): number | undefined {
  return whole === 0 ? undefined : part / whole;
}
