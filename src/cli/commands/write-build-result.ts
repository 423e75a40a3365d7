import { type BuildTrace, isContextLossWarning, traceDecisions } from '../../index.js';
import type { CliIo } from '../cli-io.js';
import { renderSectionTable } from '../render-section-table.js';
import type { AgentContext } from './agent-context.js';
import type { BuildFlags } from './build-flags.js';
import type { Rendered } from './build-formats.js';

/** What `build` prints: the result on stdout, the warnings and the token table on stderr. */
export function writeBuildResult(
  io: CliIo,
  result: {
    readonly flags: BuildFlags;
    readonly presetName: string;
    readonly formatName: string;
    readonly rendered: Rendered;
    readonly shown: BuildTrace;
    /** Warnings to report: the store's load warnings and the budget problems (allowed over budget). */
    readonly problems: readonly string[];
    readonly budget: AgentContext['budget'];
  },
): void {
  const { flags, presetName, formatName, rendered, shown, problems } = result;
  const lost = (shown.warnings ?? []).filter(isContextLossWarning);
  if (flags.json === true) {
    const report = {
      preset: presetName,
      format: formatName,
      messages: rendered.value,
      sections: shown.sections,
      toolTokens: shown.toolTokens,
      totalTokens: shown.totalTokens,
      tokenCounter: shown.tokenCounter,
      ...(presetName === 'agent' ? { budget: result.budget } : {}),
      decisions: traceDecisions(shown),
      warnings: [...lost.map((warning) => warning.message), ...problems, ...rendered.warnings],
      ...(lost.length === 0 ? {} : { contextLoss: lost }),
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else io.stdout.write(rendered.text);
  for (const warning of lost) io.stderr.write(`warning (${warning.type}): ${warning.message}\n`);
  for (const warning of rendered.warnings) io.stderr.write(`warning (${formatName}): ${warning}\n`);
  for (const problem of problems) io.stderr.write(`warning: ${problem}\n`);
  if (flags['no-summary'] !== true && flags.json !== true)
    io.stderr.write(renderBuildSummary(shown, presetName));
}

function renderBuildSummary(trace: BuildTrace, preset: string): string {
  const decisions = traceDecisions(trace).map(
    (decision) =>
      `  ${decision.stage}: ${decision.type} (${decision.messageIds.length} messages): ${decision.reason}`,
  );
  const errors = trace.stages.flatMap((stage) =>
    stage.error === undefined ? [] : [`  ${stage.id}: ${stage.error.code}: ${stage.error.message}`],
  );
  return [
    `preset: ${preset}`,
    renderSectionTable(trace),
    ...(decisions.length === 0 ? [] : ['decisions:', ...decisions, '']),
    ...(errors.length === 0 ? [] : ['stage errors (skipped):', ...errors, '']),
  ].join('\n');
}
