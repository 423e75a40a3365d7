import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { ChatModel } from '../llm/chat-model.js';
import { createScriptedSummarizer, type ScriptedSummarizerKind } from '../testing/scripted-summarizer.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { EvalMetrics } from './eval-metrics.js';
import { EVAL_PRICES, type EvalPrices } from './eval-prices.js';
import type { EvalScenario } from './eval-scenario.js';
import type { EvalStrategy } from './eval-strategy.js';
import type { EvalCell } from './eval-tiers.js';
import { generateScenario } from './generate-scenario.js';
import { runScenario } from './run-scenario.js';
import { EVAL_SUMMARY_LINES } from './scenario-text.js';
import { ScriptedAgentModel } from './scripted-agent-model.js';

/** The summariser kinds {@link runEval} runs by default, in report order. */
export const EVAL_SUMMARISER_KINDS: readonly ScriptedSummarizerKind[] = Object.freeze([
  'faithful',
  'lossy',
  'adversarial',
  'failing',
  'slow',
]);

/**
 * The default summarisers of {@link runEval}: `ctxloom/testing`'s scripted ones, the faithful and
 * slow ones focused on the lines the scenarios plant (rules and stated values), the slow one 1 ms slow.
 */
export function evalSummarisers(): readonly ChatModel[] {
  return EVAL_SUMMARISER_KINDS.map((kind) =>
    createScriptedSummarizer(kind, { delayMs: 1, keepLines: EVAL_SUMMARY_LINES }),
  );
}

/** Options for {@link runEval}. */
export type RunEvalOptions = {
  /** The strategies to grade. */
  readonly strategies: readonly EvalStrategy[];
  /** The cells to run (see `evalTierCells`). */
  readonly cells: readonly EvalCell[];
  /** The summarisers a strategy with `usesSummariser` runs with. @default evalSummarisers() */
  readonly summarisers?: readonly ChatModel[];
  /** The agent that answers at probe calls. @default new ScriptedAgentModel() */
  readonly agent?: ChatModel;
  /** Counts the tokens of what is sent. @default a cached EstimatingTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** The prices of the dollar figures. @default EVAL_PRICES */
  readonly prices?: EvalPrices;
  /** Told after every run. @default none */
  readonly onProgress?: (progress: EvalProgress) => void;
  readonly signal?: AbortSignal;
};

/** The keys of {@link RunEvalOptions}. */
export const RUN_EVAL_OPTION_KEYS = {
  strategies: true,
  cells: true,
  summarisers: true,
  agent: true,
  tokenCounter: true,
  prices: true,
  onProgress: true,
  signal: true,
} as const satisfies OptionKeys<RunEvalOptions>;

/** Where a {@link runEval} is. */
export type EvalProgress = { readonly done: number; readonly total: number; readonly run: string };

/** One graded run: a scenario × strategy × summariser at one budget. */
export type EvalRunResult = {
  readonly scenarioId: string;
  readonly family: EvalCell['family'];
  readonly turns: number;
  readonly seed: number;
  readonly budgetTokens: number;
  readonly strategyId: string;
  readonly strategyLabel: string;
  readonly isDefault: boolean;
  /** The summariser's id, or `none`. */
  readonly summariserId: string;
  readonly metrics: EvalMetrics;
};

/** What {@link runEval} returns: every run, plus what it was run with. */
export type EvalResult = {
  readonly runs: readonly EvalRunResult[];
  readonly agentId: string;
  readonly prices: EvalPrices;
  readonly cells: readonly EvalCell[];
};

/**
 * Runs every strategy (with every summariser, when it uses one) over every cell's scenario, records
 * each request it sends, has the agent answer at probe calls, and grades the requests: rules
 * visible and violations, the latest user request, identifiers, answers and stale values, provider
 * validity, tokens, and cache hit rate and cost under both providers' rules. Offline and
 * deterministic for deterministic strategies, summarisers and agent.
 * @throws ContextError `ABORTED` when the signal is aborted; `INVALID_OPTIONS` for an unknown option or a bad cell.
 * @example const result = await runEval({ strategies: [governorStrategy()], cells: evalTierCells('small') });
 */
export async function runEval(options: RunEvalOptions): Promise<EvalResult> {
  checkOptions(options, { where: 'runEval options', known: RUN_EVAL_OPTION_KEYS });
  const summarisers = options.summarisers ?? evalSummarisers();
  const agent = options.agent ?? new ScriptedAgentModel();
  const tokenCounter = options.tokenCounter ?? withTokenCache(new EstimatingTokenCounter());
  const prices = options.prices ?? EVAL_PRICES;
  const plans = options.cells.flatMap((cell) =>
    options.strategies.flatMap((strategy) =>
      (strategy.usesSummariser ? summarisers : [undefined]).map((summariser) => ({
        cell,
        strategy,
        summariser,
      })),
    ),
  );
  const scenarios = new Map<string, EvalScenario>();
  const runs: EvalRunResult[] = [];
  for (const plan of plans) {
    const { cell, strategy, summariser } = plan;
    const key = `${cell.family}/${cell.turns}/${cell.seed}`;
    const scenario =
      scenarios.get(key) ?? generateScenario({ family: cell.family, turns: cell.turns, seed: cell.seed });
    scenarios.set(key, scenario);
    const metrics = await runScenario({
      scenario,
      strategy,
      budgetTokens: cell.budgetTokens,
      agent,
      tokenCounter,
      prices,
      ...(summariser === undefined ? {} : { summariser }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const summariserId = summariser?.id ?? 'none';
    runs.push({
      scenarioId: scenario.id,
      family: cell.family,
      turns: cell.turns,
      seed: cell.seed,
      budgetTokens: cell.budgetTokens,
      strategyId: strategy.id,
      strategyLabel: strategy.label,
      isDefault: strategy.isDefault,
      summariserId,
      metrics,
    });
    options.onProgress?.({
      done: runs.length,
      total: plans.length,
      run: `${scenario.id} @${cell.budgetTokens} ${strategy.id}${summariser === undefined ? '' : ` + ${summariserId}`}`,
    });
  }
  return { runs, agentId: agent.id, prices, cells: options.cells };
}
