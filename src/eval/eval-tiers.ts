import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { EVAL_FAMILIES, type EvalFamily } from './eval-scenario.js';

/** One cell of the eval: a family's scenario of `turns` turns from `seed`, graded at `budgetTokens`. */
export type EvalCell = {
  readonly family: EvalFamily;
  readonly turns: number;
  readonly seed: number;
  readonly budgetTokens: number;
};

/** The named sizes of the eval. */
export type EvalTier = 'small' | 'full';

/** The grid of {@link evalCells}. */
export type EvalGrid = {
  readonly families: readonly EvalFamily[];
  readonly turnCounts: readonly number[];
  readonly budgets: readonly number[];
  readonly seeds: readonly number[];
};

const EVAL_GRID_KEYS = {
  families: true,
  turnCounts: true,
  budgets: true,
  seeds: true,
} as const satisfies OptionKeys<EvalGrid>;

/**
 * Every cell of `families × turnCounts × budgets × seeds`.
 * @throws ContextError `INVALID_OPTIONS` for an unknown key of the grid.
 */
export function evalCells(grid: EvalGrid): readonly EvalCell[] {
  checkOptions(grid, { where: 'evalCells grid', known: EVAL_GRID_KEYS });
  return grid.families.flatMap((family) =>
    grid.turnCounts.flatMap((turns) =>
      grid.seeds.flatMap((seed) =>
        grid.budgets.map((budgetTokens) => ({ family, turns, seed, budgetTokens })),
      ),
    ),
  );
}

/**
 * The cells of a tier. `small` (CI): every family, 40 turns, budgets of 6,000 and 16,000 tokens.
 * `full`: every family at 40 turns and budgets of 6,000, 16,000 and 64,000 tokens and at 200 turns
 * and 16,000 tokens, plus 1,000-turn sessions of `rules-user` and `facts-updates` at 16,000 tokens.
 */
export function evalTierCells(tier: EvalTier, seed = 1): readonly EvalCell[] {
  const families = EVAL_FAMILIES;
  if (tier === 'small')
    return evalCells({ families, turnCounts: [40], budgets: [6_000, 16_000], seeds: [seed] });
  return [
    ...evalCells({ families, turnCounts: [40], budgets: [6_000, 16_000, 64_000], seeds: [seed] }),
    ...evalCells({ families, turnCounts: [200], budgets: [16_000], seeds: [seed] }),
    ...evalCells({
      families: ['rules-user', 'facts-updates'],
      turnCounts: [1_000],
      budgets: [16_000],
      seeds: [seed],
    }),
  ];
}
