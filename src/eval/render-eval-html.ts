import { checkEvalInvariants } from './check-eval-invariants.js';
import { dollars, millions, percent, rowLabel } from './format-eval.js';
import { paretoFront } from './pareto-front.js';
import type { EvalResult } from './run-eval.js';
import { type EvalSummaryRow, summarizeEval } from './summarize-eval.js';

const WIDTH = 760;
const HEIGHT = 420;
const MARGIN = { left: 64, right: 24, top: 24, bottom: 48 } as const;

/**
 * Renders an eval result as one self-contained HTML page (inline style, no script, nothing
 * fetched): the summary table and an inline SVG chart of quality against Anthropic input cost, one
 * point per strategy (and summariser), with the Pareto front drawn.
 */
export function renderEvalHtml(result: EvalResult): string {
  const rows = summarizeEval(result.runs);
  const failures = checkEvalInvariants(result.runs);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ctxloom context-quality eval</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}th{background:#f6f8fa}.ours{font-weight:600}
.bad{color:#b42318}.ok{color:#067647}
</style></head><body>
<h1>ctxloom context-quality eval</h1>
<p>${result.runs.length} runs over ${result.cells.length} cells; agent <code>${escapeHtml(result.agentId)}</code>.
Prices: ${escapeHtml(result.prices.anthropic.model)} $${result.prices.anthropic.inputUsdPerMillionTokens}/M input, ${escapeHtml(result.prices.openai.model)} $${result.prices.openai.inputUsdPerMillionTokens}/M input (${escapeHtml(result.prices.anthropic.source)}; ${escapeHtml(result.prices.openai.source)}).</p>
<h2>Quality against cost</h2>
${chart(rows)}
<ol>${rows.map((row) => `<li${row.isDefault ? ' class="ours"' : ''}>${escapeHtml(rowLabel(row))}: quality ${percent(row.quality)}, ${dollars(row.anthropicCostUsd)}</li>`).join('')}</ol>
<p>Points are numbered as listed; filled points are on the Pareto front (no other strategy is both cheaper and better). Quality is the mean of the graded rates; cost is the Anthropic input cost of all runs with prompt caching.</p>
<h2>All scenarios</h2>
${table(rows)}
<h2>Default-configuration invariants</h2>
${
  failures.length === 0
    ? '<p class="ok">All held.</p>'
    : `<ul class="bad">${failures.map((failure) => `<li>${escapeHtml(`${failure.strategyId} on ${failure.scenarioId} at ${failure.budgetTokens}: ${failure.invariant} ${percent(failure.value)}`)}</li>`).join('')}</ul>`
}
</body></html>
`;
}

function table(rows: readonly EvalSummaryRow[]): string {
  const head = [
    'strategy',
    'quality',
    'rules visible',
    'violations',
    'latest request',
    'identifiers',
    'answers',
    'stale',
    'valid',
    'tokens',
    'hit A',
    'hit O',
    'cost A',
    'cost O',
  ];
  const body = rows.map((row) =>
    [
      rowLabel(row),
      percent(row.quality),
      percent(row.ruleVisibility),
      percent(row.violationRate),
      percent(row.latestRequest),
      percent(row.identifierRetention),
      percent(row.answerAccuracy),
      percent(row.staleRate),
      percent(row.providerValidity),
      millions(row.tokensSent),
      percent(row.anthropicHitRate),
      percent(row.openaiHitRate),
      dollars(row.anthropicCostUsd),
      dollars(row.openaiCostUsd),
    ]
      .map((cell) => `<td>${escapeHtml(cell)}</td>`)
      .join(''),
  );
  return `<table><tr>${head.map((cell) => `<th>${cell}</th>`).join('')}</tr>${body
    .map((cells, index) => `<tr${rows[index]?.isDefault === true ? ' class="ours"' : ''}>${cells}</tr>`)
    .join('')}</table>`;
}

function chart(rows: readonly EvalSummaryRow[]): string {
  const points = rows.map((row) => ({ cost: row.anthropicCostUsd, quality: row.quality, row }));
  const maxCost = Math.max(1e-9, ...points.map((point) => point.cost)) * 1.1;
  const x = (cost: number): number => MARGIN.left + (cost / maxCost) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (quality: number): number =>
    HEIGHT - MARGIN.bottom - quality * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const front = paretoFront(points);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const grid = ticks
    .map(
      (tick) =>
        `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#eaeef2"/>` +
        `<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" text-anchor="end" font-size="11">${tick * 100}%</text>` +
        `<text x="${x(tick * maxCost)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle" font-size="11">${dollars(tick * maxCost)}</text>`,
    )
    .join('');
  const line = front.map((point) => `${x(point.cost).toFixed(1)},${y(point.quality).toFixed(1)}`).join(' ');
  const dots = points
    .map((point, index) => {
      const isFront = front.includes(point);
      const color = point.row.isDefault ? '#0969da' : '#8250df';
      return (
        `<circle cx="${x(point.cost).toFixed(1)}" cy="${y(point.quality).toFixed(1)}" r="5" fill="${isFront ? color : '#fff'}" stroke="${color}" stroke-width="2"/>` +
        `<text x="${(x(point.cost) + 7).toFixed(1)}" y="${(y(point.quality) - 5 - (index % 3) * 9).toFixed(1)}" font-size="10">${index + 1}</text>`
      );
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="quality against cost">
<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>${grid}
<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}" stroke="#57606a"/>
<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom}" stroke="#57606a"/>
<polyline points="${line}" fill="none" stroke="#cf222e" stroke-width="1.5" stroke-dasharray="5 3"/>${dots}
<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 12}" text-anchor="middle" font-size="12">Anthropic input cost (all runs, with caching)</text>
<text x="16" y="${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2})">quality</text>
<text x="${WIDTH - MARGIN.right}" y="${MARGIN.top}" text-anchor="end" font-size="11" fill="#cf222e">dashed: Pareto front (filled points)</text>
</svg>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
