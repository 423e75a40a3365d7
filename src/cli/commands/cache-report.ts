import type { PromptCacheSimulation } from '../../cache/index.js';
import type { CacheCall, CacheReport, CallSource } from './cache-calls.js';

/**
 * The human report of `ctxloom cache`: where the calls came from, per provider one row per request
 * (with the provider-reported input and cache reads beside the simulated ones when recorded), the
 * totals, and the volatile content of the stable prefix.
 */
export function renderCacheReport(report: CacheReport): string {
  const lines = [
    `Prompt cache of session ${report.session} (${sourceLine(report.source, report.calls.length)})`,
  ];
  const hasReported = report.calls.some((call) => call.reported !== undefined);
  for (const simulation of report.simulations) {
    lines.push(
      '',
      `${simulation.provider} (simulated):`,
      `   #     input      read     write   hit${hasReported ? '  | reported    input      read   hit' : ''}`,
    );
    for (const request of simulation.requests) {
      const problems = request.problems.length === 0 ? '' : `  refused: ${request.problems.join('; ')}`;
      const reported = hasReported ? reportedColumns(report.calls[request.index]) : '';
      lines.push(
        `${pad(request.index + 1, 4)} ${pad(request.inputTokens, 9)} ${pad(request.cacheReadTokens, 9)} ${pad(request.cacheWriteTokens, 9)} ${pad(percent(request.hitRate), 5)}${reported}${problems}`,
      );
    }
    const { totals } = simulation;
    lines.push(
      `total ${pad(totals.inputTokens, 8)} ${pad(totals.cacheReadTokens, 9)} ${pad(totals.cacheWriteTokens, 9)} ${pad(percent(totals.hitRate), 5)}`,
      `steady-state hit rate ${percent(totals.steadyStateHitRate)}, input cost ${percent(totals.costRatio)} of no cache (${totals.illegalRequests} refused)`,
    );
    if (hasReported) lines.push(comparison(simulation, report.calls));
  }
  lines.push(
    '',
    report.volatile.length === 0 ? 'No volatile content in the stable prefix.' : 'Volatile content:',
  );
  for (const finding of report.volatile) lines.push(`  - ${finding.message}`);
  return `${lines.join('\n')}\n`;
}

function sourceLine(source: CallSource, calls: number): string {
  if (source.kind === 'replay') return `${calls} model calls replayed from the stored session`;
  const skipped = source.skipped === 0 ? '' : `; ${source.skipped} logged without their messages left out`;
  return `${calls} model calls from the request recorder's log in ${source.log}${skipped}`;
}

function reportedColumns(call: CacheCall | undefined): string {
  const usage = call?.reported;
  if (usage?.inputTokens === undefined)
    return `  | ${' '.repeat(8)}${pad('—', 9)} ${pad('—', 9)} ${pad('—', 5)}`;
  const read = usage.cachedInputTokens ?? 0;
  return `  | ${' '.repeat(8)}${pad(usage.inputTokens, 9)} ${pad(read, 9)} ${pad(percent(share(read, usage.inputTokens)), 5)}`;
}

/** Simulated against reported cache reads, over the requests the provider reported usage for. */
function comparison(simulation: PromptCacheSimulation, calls: readonly CacheCall[]): string {
  let reportedInput = 0;
  let reportedRead = 0;
  let simulatedInput = 0;
  let simulatedRead = 0;
  let count = 0;
  for (const request of simulation.requests) {
    const usage = calls[request.index]?.reported;
    if (usage?.inputTokens === undefined) continue;
    count += 1;
    reportedInput += usage.inputTokens;
    reportedRead += usage.cachedInputTokens ?? 0;
    simulatedInput += request.inputTokens;
    simulatedRead += request.cacheReadTokens;
  }
  return `over the ${count} requests with reported usage: simulated ${format(simulatedRead)} of ${format(simulatedInput)} input tokens read from the cache (${percent(share(simulatedRead, simulatedInput))}), the provider reported ${format(reportedRead)} of ${format(reportedInput)} (${percent(share(reportedRead, reportedInput))})`;
}

function share(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

function pad(value: number | string, width: number): string {
  return String(value).padStart(width);
}

function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

const numberFormat = new Intl.NumberFormat('en-US');

function format(tokens: number): string {
  return numberFormat.format(tokens);
}
