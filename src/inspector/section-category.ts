/**
 * Where a piece of the context belongs in the inspector's breakdown: a stable `id`, the label people
 * read, and its rank in the fixed display order.
 */
export type CategoryKey = {
  /** Stable id, e.g. `identity`, `file:AGENTS.md`, `history`. */
  readonly id: string;
  /** Display label, e.g. `Identity`, `AGENTS.md`, `History`. */
  readonly name: string;
  /** Position in the display order (lower first); ties keep first-appearance order. */
  readonly rank: number;
};

/** The categories every inspection lists, even at 0 tokens, in display order. */
export const STANDARD_CATEGORIES = Object.freeze({
  identity: { id: 'identity', name: 'Identity', rank: 10 },
  bootstrap: { id: 'bootstrap', name: 'Bootstrap files', rank: 20 },
  toolContract: { id: 'tool-contract', name: 'Tool contract', rank: 30 },
  memory: { id: 'memory', name: 'Memory', rank: 40 },
  skills: { id: 'skills', name: 'Skills', rank: 50 },
  recentHistory: { id: 'recent-history', name: 'Recent history', rank: 60 },
  summary: { id: 'summary', name: 'Summary', rank: 70 },
  otherSystem: { id: 'system', name: 'Other system', rank: 80 },
  toolSchemas: { id: 'tool-schemas', name: 'Tool schemas', rank: 90 },
  history: { id: 'history', name: 'History', rank: 100 },
  current: { id: 'current-message', name: 'Current message', rank: 110 },
} satisfies Record<string, CategoryKey>);

/** The model's own notes (context tools), shown beside the summary when a session has them. */
export const NOTES_CATEGORY: CategoryKey = Object.freeze({ id: 'notes', name: 'Notes', rank: 75 });

const RULES: readonly (readonly [RegExp, CategoryKey])[] = [
  [/bootstrap|workspace-files|agent-files/, STANDARD_CATEGORIES.bootstrap],
  [/tool-contract|tools-desc|tool-description|tool-notes/, STANDARD_CATEGORIES.toolContract],
  [/^notes$/, NOTES_CATEGORY],
  [/recent-history/, STANDARD_CATEGORIES.recentHistory],
  [/summary|archived/, STANDARD_CATEGORIES.summary],
  [/memory/, STANDARD_CATEGORIES.memory],
  [/skill/, STANDARD_CATEGORIES.skills],
  [/identity|persona|static-prompt|system-prompt|soul/, STANDARD_CATEGORIES.identity],
  [/current/, STANDARD_CATEGORIES.current],
  [/history|conversation|session/, STANDARD_CATEGORIES.history],
];

/**
 * Maps a provider's section id (and the message role) to its category. System-prompt sections are
 * matched by name (identity, bootstrap, tool contract, memory, skills, recent history, summary);
 * unknown system sections get a category of their own named after the section (a system note of the
 * history provider counts as history); other roles go to the current message, the summary or the history.
 */
export function sectionCategory(section: string | undefined, role: string): CategoryKey {
  const id = (section ?? '').toLowerCase();
  const match = RULES.find(([pattern]) => pattern.test(id))?.[1];
  if (role === 'system') {
    if (match !== undefined) return match;
    if (section === undefined) return STANDARD_CATEGORIES.otherSystem;
    return { id: `system:${section}`, name: section, rank: STANDARD_CATEGORIES.otherSystem.rank };
  }
  if (match === STANDARD_CATEGORIES.current || match === STANDARD_CATEGORIES.summary) return match;
  return STANDARD_CATEGORIES.history;
}

/** The category of one bootstrap file (`AGENTS.md`, `SOUL.md`, …). */
export function fileCategory(fileName: string): CategoryKey {
  return { id: `file:${fileName}`, name: fileName, rank: STANDARD_CATEGORIES.bootstrap.rank };
}
