/**
 * @module ctxloom/eval
 * The offline context-quality eval: seeded scenario families (`generateScenario`), scripted
 * summarisers and agent as `ChatModel`s, context strategies behind one contract (`EvalStrategy`;
 * ctxloom's presets and governor here, the peers' in the repository's `eval/`), pure graders over
 * the recorded requests, the providers' prompt-cache simulation and prices, and Markdown and HTML
 * reports. No network; the same seed gives the same numbers.
 */
export { type AgentPresetStrategyOptions, agentPresetStrategy } from './agent-preset-strategy.js';
export { type ChatPresetStrategyOptions, chatPresetStrategy } from './chat-preset-strategy.js';
export {
  checkEvalInvariants,
  type EvalInvariant,
  type EvalInvariantFailure,
} from './check-eval-invariants.js';
export { type CompactionStrategyOptions, compactionStrategy } from './compaction-strategy.js';
export {
  DEFERRED_PROBE_TOOL,
  type DeferredToolsCheckOptions,
  type DeferredToolsRun,
  deferredToolsScenario,
  renderDeferredToolsMarkdown,
  runDeferredToolsCheck,
} from './deferred-tools-check.js';
export { type EvalMetrics, type EvalProviderCost, rate } from './eval-metrics.js';
export { EVAL_PRICES, type EvalPrice, type EvalPrices } from './eval-prices.js';
export {
  EVAL_FAMILIES,
  type EvalCall,
  type EvalFactKind,
  type EvalFamily,
  type EvalProbe,
  type EvalRule,
  type EvalScenario,
  type EvalTurn,
  type RulePlacement,
} from './eval-scenario.js';
export type {
  EvalCallInput,
  EvalCompactionState,
  EvalStrategy,
  EvalStrategyRun,
  EvalStrategySetup,
} from './eval-strategy.js';
export { type EvalCell, type EvalGrid, type EvalTier, evalCells, evalTierCells } from './eval-tiers.js';
export { PLANTED_INSTRUCTION } from './family-plan.js';
export {
  type GenerateScenarioOptions,
  generateScenario,
  historyBefore,
  MIN_SCENARIO_TURNS,
} from './generate-scenario.js';
export { type GovernorStrategyOptions, governorStrategy } from './governor-strategy.js';
export { type EvalCallGrade, type GradeCallInput, gradeCall } from './grade-call.js';
export {
  type EvalCompactionGrade,
  type GradeCompactionInput,
  gradeCompaction,
  type SessionCoverage,
  sessionCoverage,
} from './grade-compaction.js';
export { type ParetoPoint, paretoFront } from './pareto-front.js';
export { renderEvalHtml } from './render-eval-html.js';
export { renderEvalMarkdown } from './render-eval-markdown.js';
export { roleOrderProblems } from './role-order-problems.js';
export {
  EVAL_SUMMARISER_KINDS,
  type EvalProgress,
  type EvalResult,
  type EvalRunResult,
  evalSummarisers,
  type RunEvalOptions,
  runEval,
} from './run-eval.js';
export { type RunScenarioOptions, runScenario } from './run-scenario.js';
export { EVAL_PERSONA, EVAL_SUMMARY_LINES, EVAL_TOOLS, ruleText, statement } from './scenario-text.js';
export { lastStatedValue, ScriptedAgentModel } from './scripted-agent-model.js';
export { createSeededRandom, type SeededRandom } from './seeded-random.js';
export { type EvalSummaryRow, summarizeEval } from './summarize-eval.js';
export { visibleText } from './visible-text.js';
