import { apportionTokens } from '../core/index.js';
import type { Decision } from '../index.js';
import type { ContextCategory, ContextInspection } from './inspect-context.js';

/** Options for {@link renderContextReport}. */
export type RenderContextReportOptions = {
  /** Terminal width; below `minGridColumns` the grid is left out. @default 80 */
  readonly columns?: number;
  /** Emit ANSI 256-colour escape codes. @default false */
  readonly color?: boolean;
  /** Narrowest width that still shows the grid. @default 60 */
  readonly minGridColumns?: number;
  /** A title line printed first, e.g. the session key. @default none */
  readonly title?: string;
};

/** Defaults of {@link RenderContextReportOptions}. */
export const DEFAULT_RENDER_CONTEXT_REPORT = Object.freeze({ columns: 80, color: false, minGridColumns: 60 });

const GRID_ROWS = 10;
const GRID_COLUMNS = 10;
const SIDE_BY_SIDE_COLUMNS = 80;
const COLORS: Readonly<Record<string, number>> = {
  identity: 75,
  'tool-contract': 214,
  memory: 114,
  skills: 220,
  'recent-history': 174,
  summary: 180,
  'tool-schemas': 209,
  history: 39,
  'current-message': 203,
  'reserved-output': 244,
  free: 238,
};
const EXTRA_COLORS = [141, 177, 183, 147, 219, 105, 225, 111];
const PLAIN_GLYPHS = '#@%&*+=$~^ox8:;?!Z';
const PLAIN_KIND_GLYPHS: Partial<Record<ContextCategory['kind'], string>> = { reserved: '/', free: '.' };
const COLOR_KIND_GLYPHS: Record<ContextCategory['kind'], string> = { used: '■', reserved: '▨', free: '□' };

/**
 * Renders an inspection as text, like Claude Code's `/context`: the model and `used/total tokens
 * (percent)`, a 10×10 grid where each cell is 1% of the window coloured (or, without colour, drawn)
 * by category, one line per category, the warnings and the decisions. Narrow terminals get the list
 * without the grid. Control characters in names and reasons are replaced, so stored content cannot
 * drive the terminal.
 */
export function renderContextReport(
  inspection: ContextInspection,
  options: RenderContextReportOptions = {},
): string {
  const resolved = { ...DEFAULT_RENDER_CONTEXT_REPORT, ...options };
  const styles = categoryStyles(inspection.categories, resolved.color);
  const list = inspection.categories.map((category) => categoryLine(category, styles.get(category.id)));
  const used = inspection.usedTokens;
  const window = inspection.contextWindowTokens;
  const header = `${clean(inspection.model)} · ${format(used)}/${format(window)} tokens (${percentOf(used, window)}%)`;
  const lines: string[] = resolved.title === undefined ? [] : [clean(resolved.title)];
  lines.push(header, '');
  if (resolved.columns < resolved.minGridColumns) {
    lines.push(...list);
  } else {
    const grid = gridRows(inspection.categories, styles);
    if (resolved.columns >= SIDE_BY_SIDE_COLUMNS) {
      const height = Math.max(grid.length, list.length);
      for (let row = 0; row < height; row += 1) {
        lines.push(`${grid[row] ?? ' '.repeat(GRID_COLUMNS * 2 - 1)}   ${list[row] ?? ''}`.trimEnd());
      }
    } else {
      lines.push(...grid, '', ...list);
    }
  }
  lines.push('', ...warningLines(inspection), '', ...decisionLines(inspection.decisions));
  return `${lines.join('\n')}\n`;
}

type Style = { readonly glyph: string; readonly paint: (text: string) => string };

function categoryStyles(categories: readonly ContextCategory[], color: boolean): Map<string, Style> {
  const styles = new Map<string, Style>();
  let extra = 0;
  categories.forEach((category, index) => {
    if (!color) {
      const glyph = PLAIN_KIND_GLYPHS[category.kind] ?? PLAIN_GLYPHS[index % PLAIN_GLYPHS.length] ?? '#';
      // reserved and free come last, so used categories index the glyph list without gaps
      styles.set(category.id, { glyph, paint: (text) => text });
      return;
    }
    let code = COLORS[category.id];
    if (code === undefined) {
      code = EXTRA_COLORS[extra % EXTRA_COLORS.length] ?? 250;
      extra += 1;
    }
    const glyph = COLOR_KIND_GLYPHS[category.kind];
    styles.set(category.id, { glyph, paint: (text) => `\u001b[38;5;${code}m${text}\u001b[0m` });
  });
  return styles;
}

function gridRows(categories: readonly ContextCategory[], styles: Map<string, Style>): readonly string[] {
  const cells = gridCells(categories);
  const glyphs = categories.flatMap((category, index) => {
    const style = styles.get(category.id);
    return Array.from({ length: cells[index] ?? 0 }, () => style?.paint(style.glyph) ?? '?');
  });
  return Array.from({ length: GRID_ROWS }, (_, row) =>
    glyphs.slice(row * GRID_COLUMNS, (row + 1) * GRID_COLUMNS).join(' '),
  );
}

/** Cells per category (1% of the window each); every non-empty used category gets at least one. */
function gridCells(categories: readonly ContextCategory[]): readonly number[] {
  const cells = [
    ...apportionTokens(
      GRID_ROWS * GRID_COLUMNS,
      categories.map((category) => category.tokens),
    ),
  ];
  categories.forEach((category, index) => {
    if (category.kind !== 'used' || category.tokens === 0 || cells[index] !== 0) return;
    const donor = cells.indexOf(Math.max(...cells));
    if ((cells[donor] ?? 0) <= 1) return;
    cells[donor] = (cells[donor] ?? 0) - 1;
    cells[index] = 1;
  });
  return cells;
}

function categoryLine(category: ContextCategory, style: Style | undefined): string {
  const glyph = style === undefined ? ' ' : style.paint(style.glyph);
  const name = clean(category.name).padEnd(18);
  return `${glyph} ${name} ${format(category.tokens).padStart(9)} tokens ${category.percent.toFixed(1).padStart(5)}%`;
}

function warningLines(inspection: ContextInspection): readonly string[] {
  if (inspection.warnings.length === 0) return ['Warnings: none'];
  return [
    'Warnings:',
    ...inspection.warnings.map(
      (warning) => `  ! ${warning.type === 'store-load' ? 'Store: ' : ''}${clean(warning.message)}`,
    ),
  ];
}

function decisionLines(decisions: readonly Decision[]): readonly string[] {
  if (decisions.length === 0) return ['Decisions: none'];
  return [
    `Decisions (${decisions.length}):`,
    ...decisions.map((decision) => {
      const ids = decision.messageIds.length === 0 ? '' : ` [${decision.messageIds.map(clean).join(', ')}]`;
      const tokens =
        decision.tokensBefore === undefined || decision.tokensAfter === undefined
          ? ''
          : ` (${format(decision.tokensBefore)} → ${format(decision.tokensAfter)} tokens)`;
      return `  - ${decision.type} by ${clean(decision.stage)}: ${clean(decision.reason)}${tokens}${ids}`;
    }),
  ];
}

function format(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

function percentOf(part: number, whole: number): string {
  return whole === 0 ? '0.0' : ((part / whole) * 100).toFixed(1);
}

/** Replaces control characters (ESC included) so hostile text cannot move the cursor or recolour. */
function clean(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we replace
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
