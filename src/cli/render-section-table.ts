import type { BuildTrace } from '../index.js';

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * Renders the per-section token table of a build: one row per section (messages, tokens, percent of
 * the total; the parts of a joined system prompt as `system-prompt › identity` rows), a row for the
 * tool schemas when there are any, the total and the counter id.
 */
export function renderSectionTable(trace: BuildTrace): string {
  const total = trace.totalTokens;
  const percent = (tokens: number): string =>
    total === 0 ? '0.0%' : `${((tokens / total) * 100).toFixed(1)}%`;
  const rows: string[][] = trace.sections.map((section) => [
    section.partOf === undefined ? section.section : `${section.partOf} › ${section.section}`,
    section.partOf === undefined ? String(section.messages) : '-',
    numberFormat.format(section.tokens),
    percent(section.tokens),
  ]);
  if (trace.toolTokens > 0)
    rows.push(['(tool schemas)', '-', numberFormat.format(trace.toolTokens), percent(trace.toolTokens)]);
  const messageCount = trace.sections.reduce((sum, section) => sum + section.messages, 0);
  const header = ['section', 'messages', 'tokens', 'percent'];
  const footer = ['total', String(messageCount), numberFormat.format(total), total === 0 ? '0.0%' : '100.0%'];
  const all = [header, ...rows, footer];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [
    line(header),
    rule,
    ...rows.map(line),
    rule,
    line(footer),
    `counter: ${trace.tokenCounter}`,
    '',
  ].join('\n');
}
