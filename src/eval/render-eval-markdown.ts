import { checkEvalInvariants } from './check-eval-invariants.js';
import { EVAL_FAMILIES } from './eval-scenario.js';
import { dollars, millions, percent, rowLabel } from './format-eval.js';
import { paretoFront } from './pareto-front.js';
import type { EvalResult } from './run-eval.js';
import { type EvalSummaryRow, summarizeEval } from './summarize-eval.js';

const HEAD =
  '| strategy | quality | rules visible | system rules | violations | latest request | identifiers | answers | recall | stale | valid | tokens sent | cache hit A / O | cost A / O | on front |';

const COMPACTION_HEAD =
  '| strategy | superseded | recallable | lineage valid | coverage exact | compactions / 100 turns | tokens saved / compaction | deepest chain | failed summaries | unchanged on failure | background discarded |';

/**
 * Renders an eval result as Markdown: what was run and the prices used, one table over every run,
 * one table per family, and the default-configuration invariants that did not hold.
 */
export function renderEvalMarkdown(result: EvalResult): string {
  const turns = [...new Set(result.cells.map((cell) => cell.turns))].join(', ');
  const budgets = [...new Set(result.cells.map((cell) => cell.budgetTokens))].join(', ');
  const failures = checkEvalInvariants(result.runs);
  const lines = [
    '# ctxloom context-quality eval',
    '',
    `${result.runs.length} runs: ${result.cells.length} cells (sessions of ${turns} turns at input budgets of ${budgets} tokens), agent \`${result.agentId}\`.`,
    `Prices: ${result.prices.anthropic.model} $${result.prices.anthropic.inputUsdPerMillionTokens}/M input (${result.prices.anthropic.source}); ` +
      `${result.prices.openai.model} $${result.prices.openai.inputUsdPerMillionTokens}/M input (${result.prices.openai.source}).`,
    '',
    '## All scenarios',
    '',
    ...table(summarizeEval(result.runs)),
    '',
    '## Compaction and retention (all scenarios)',
    '',
    ...compactionTable(summarizeEval(result.runs)),
    ...EVAL_FAMILIES.flatMap((family) => {
      const runs = result.runs.filter((run) => run.family === family);
      return runs.length === 0 ? [] : ['', `## ${family}`, '', ...table(summarizeEval(runs))];
    }),
    '',
    '## Default-configuration invariants',
    '',
    failures.length === 0
      ? 'All held: system rules visible at every probe, the latest user request in every request, every request valid for both providers; ' +
        'for the compacting default with every summariser, the rules the user gave visible and no forbidden call, lineage valid and coverage exact in every request, and history unchanged after every failed summary.'
      : `${failures.length} failed:`,
    ...failures.map(
      (failure) =>
        `- ${failure.strategyId} on ${failure.scenarioId} at ${failure.budgetTokens} tokens: ${failure.invariant} ${percent(failure.value)} (${failure.problems.join('; ')})`,
    ),
    '',
  ];
  return lines.join('\n');
}

function table(rows: readonly EvalSummaryRow[]): readonly string[] {
  const front = new Set(
    paretoFront(rows.map((row) => ({ row, cost: row.anthropicCostUsd, quality: row.quality }))).map(
      (point) => point.row,
    ),
  );
  return [
    HEAD,
    `|${' --- |'.repeat(15)}`,
    ...rows.map(
      (row) =>
        `| ${rowLabel(row)} | ${percent(row.quality)} | ${percent(row.ruleVisibility)} | ${percent(row.systemRuleVisibility)} | ${percent(row.violationRate)} | ` +
        `${percent(row.latestRequest)} | ${percent(row.identifierRetention)} | ${percent(row.answerAccuracy)} | ${percent(row.recallRate)} | ` +
        `${percent(row.staleRate)} | ${percent(row.providerValidity)} | ${millions(row.tokensSent)} | ` +
        `${percent(row.anthropicHitRate)} / ${percent(row.openaiHitRate)} | ${dollars(row.anthropicCostUsd)} / ${dollars(row.openaiCostUsd)} | ${front.has(row) ? 'yes' : 'no'} |`,
    ),
  ];
}

function compactionTable(rows: readonly EvalSummaryRow[]): readonly string[] {
  const count = (value: number | undefined): string => (value === undefined ? 'n/a' : value.toFixed(1));
  return [
    COMPACTION_HEAD,
    `|${' --- |'.repeat(11)}`,
    ...rows.map(
      (row) =>
        `| ${rowLabel(row)} | ${percent(row.supersededRate)} | ${percent(row.recallableRate)} | ${percent(row.lineageValidity)} | ` +
        `${percent(row.coverageExactness)} | ${count(row.compactionsPer100Turns)} | ${count(row.tokensSavedPerCompaction)} | ` +
        `${row.maxCompactionDepth} | ${row.failedCompactions} | ${percent(row.unchangedOnFailure)} | ${row.discardedCompactions} |`,
    ),
  ];
}
