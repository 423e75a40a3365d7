import type { BuildTrace, Message, SectionTokens, TokenCounter } from '../index.js';
import { type ContextPiece, contextPieces } from '../inspector/index.js';

/** Tokens per section (provider id), in first-appearance order. */
export type SectionTotal = { readonly section: string; readonly tokens: number };

/**
 * Tokens per section of the pieces of a built context, the split `ctxloom inspect` shows: a joined
 * system prompt is divided among its parts in proportion to each part's own token count. `build`
 * and `inspect` both report these, so their numbers agree for the same input.
 */
export function sectionTotals(pieces: readonly ContextPiece[]): readonly SectionTotal[] {
  const totals = new Map<string, number>();
  for (const piece of pieces) {
    const section = piece.section ?? piece.role;
    totals.set(section, (totals.get(section) ?? 0) + piece.tokens);
  }
  return [...totals].map(([section, tokens]) => ({ section, tokens }));
}

/**
 * The trace's section rows (messages, `partOf`) with the tokens of {@link sectionTotals}; the
 * trace's own rows when the pieces name other sections.
 */
export function alignedSections(
  trace: BuildTrace,
  messages: readonly Message[],
  counter: TokenCounter,
): readonly SectionTokens[] {
  const totals = new Map(
    sectionTotals(contextPieces(messages, counter)).map((row) => [row.section, row.tokens]),
  );
  const rows = trace.sections.map((row) => ({ ...row, tokens: totals.get(row.section) }));
  if (rows.some((row) => row.tokens === undefined) || rows.length !== totals.size) return trace.sections;
  return rows.map((row) => ({ ...row, tokens: row.tokens ?? 0 }));
}
