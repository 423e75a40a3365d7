import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { BudgetUnsatisfiableError, ContextError } from '../core/errors.js';
import { visitListDelta } from '../core/list-delta.js';
import type { Message } from '../core/message.js';
import { sharedCopy } from '../core/shared-copy.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { formatCount } from './pinned-prefix.js';

/** Options for {@link BudgetGuardFilter}. */
export type BudgetGuardFilterOptions = {
  /** The stage id. @default 'budget-guard' */
  readonly id?: string;
  /** The input budget: messages (with per-message overhead) plus tool schemas. */
  readonly budgetTokens: number;
  /** `throw` a `BudgetUnsatisfiableError` when the request exceeds the budget, or `keep` and send it. @default 'throw' */
  readonly onOverBudget?: 'throw' | 'keep';
  /** How to reach the budget, appended to the error message. @default a generic hint */
  readonly hint?: string;
};

/** The keys of {@link BudgetGuardFilterOptions}, for `checkOptions`. @internal */
export const BUDGET_GUARD_FILTER_OPTION_KEYS = {
  id: true,
  budgetTokens: true,
  onOverBudget: true,
  hint: true,
} as const satisfies OptionKeys<BudgetGuardFilterOptions>;

/**
 * The last step of a budgeted chain: checks that the request (messages plus tool schemas, counted
 * with the builder's counter) fits `budgetTokens`, and otherwise throws a `BudgetUnsatisfiableError`
 * naming the total, the budget and the tokens that are never cut (system messages, tool schemas and
 * the last user message). With `onOverBudget: 'keep'` the request passes unchanged. Changes nothing
 * (the same array comes back) when it fits. When the counter is an estimate that can load an exact
 * counter (`loadExactCounter`, e.g. the estimator for an OpenAI model), a request over budget on the
 * estimate is counted exactly and refused only if the exact count is over too. The messages' tokens of a list derived from the last one
 * are that list's total plus what was added, minus what was removed (counts are per message).
 * @throws ContextError `INVALID_OPTIONS` when `budgetTokens` is not a finite number ≥ 0.
 */
export class BudgetGuardFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly budgetTokens: number;
  readonly #onOverBudget: 'throw' | 'keep';
  readonly #hint: string;
  /** The last list counted (a copy), its messages' tokens and the counter that counted them. */
  #last:
    | { readonly messages: readonly Message[]; readonly tokens: number; readonly counter: TokenCounter }
    | undefined;

  constructor(options: BudgetGuardFilterOptions) {
    checkOptions(options, { where: 'new BudgetGuardFilter options', known: BUDGET_GUARD_FILTER_OPTION_KEYS });
    if (!(Number.isFinite(options.budgetTokens) && options.budgetTokens >= 0)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `BudgetGuardFilter: budgetTokens must be a finite number ≥ 0, got ${String(options.budgetTokens)}.`,
        details: { budgetTokens: options.budgetTokens },
      });
    }
    this.id = options.id ?? 'budget-guard';
    this.budgetTokens = options.budgetTokens;
    this.#onOverBudget = options.onOverBudget ?? 'throw';
    this.#hint =
      options.hint ??
      "raise the budget, shorten the system prompt or the current message, send fewer tools, or pass onOverBudget: 'keep' to send it anyway";
  }

  #messageTokens(messages: readonly Message[], counter: TokenCounter): number {
    const last = this.#last;
    let tokens = 0;
    if (last === undefined || last.counter !== counter) tokens = counter.countMessages(messages);
    else {
      tokens = last.tokens;
      visitListDelta(
        { before: last.messages, after: messages },
        {
          removed: (message) => {
            tokens -= counter.countMessage(message);
          },
          added: (message) => {
            tokens += counter.countMessage(message);
          },
        },
      );
    }
    this.#last = { messages: sharedCopy(messages), tokens, counter };
    return tokens;
  }

  // biome-ignore lint/complexity/useMaxParams: the ContextFilter contract fixes this signature
  apply(
    messages: readonly Message[],
    input: BuildInput,
    context: BuildContext,
  ): FilterResult | Promise<FilterResult> {
    if (this.#onOverBudget === 'keep') return { messages, decisions: [] };
    const counter = context.tokenCounter;
    const toolTokens = counter.countTools(input.tools ?? []);
    const total = this.#messageTokens(messages, counter) + toolTokens;
    if (total <= this.budgetTokens) return { messages, decisions: [] };
    const exact = counter.loadExactCounter;
    if (exact === undefined) throw this.#unsatisfiable(messages, { counter, tools: input.tools, total });
    // Over on an estimate: refuse only if the exact count of what is left is over too.
    return exact().then((exactCounter) => {
      const exactTotal = exactCounter.countMessages(messages) + exactCounter.countTools(input.tools ?? []);
      if (exactTotal <= this.budgetTokens) return { messages, decisions: [] };
      throw this.#unsatisfiable(messages, { counter: exactCounter, tools: input.tools, total: exactTotal });
    });
  }

  #unsatisfiable(
    messages: readonly Message[],
    run: {
      readonly counter: TokenCounter;
      readonly tools: BuildInput['tools'];
      readonly total: number;
    },
  ): BudgetUnsatisfiableError {
    const { counter, total } = run;
    const toolTokens = counter.countTools(run.tools ?? []);
    const lastUser = messages.findLast((message) => message.role === 'user');
    const pinnedTokens =
      counter.countMessages(messages.filter((message) => message.role === 'system')) +
      (lastUser === undefined ? 0 : counter.countMessage(lastUser)) +
      toolTokens;
    const counted = counter.kind === 'exact' ? ` (exact, ${counter.id})` : '';
    return new BudgetUnsatisfiableError({
      budget: this.budgetTokens,
      required: total,
      pinnedTokens,
      message:
        `The request needs ${formatCount(total)} tokens${counted} after every cut (system messages, ${formatCount(toolTokens)} ` +
        `tokens of tool schemas and the last user message: ${formatCount(pinnedTokens)}) but the budget is ` +
        `${formatCount(this.budgetTokens)}; ${this.#hint}.`,
    });
  }
}
