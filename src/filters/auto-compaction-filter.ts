import type { AutoCompactor } from '../compaction/auto-compactor.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';

/** Options for {@link AutoCompactionFilter}. */
export type AutoCompactionFilterOptions = {
  /** The compactor (it keeps the sessions' records, breaker and background jobs across builds). */
  readonly compactor: AutoCompactor;
  /** The input budget the trigger and target are fractions of (0 turns the step off). */
  readonly budgetTokens: number;
  /** The session when the build input names none. @default the compactor's, else 'default' */
  readonly sessionKey?: string;
  /** The stage id. @default 'auto-compaction' */
  readonly id?: string;
};

/**
 * Automatic compaction as a pipeline step (see `AutoCompactionOptions`): placed before the budget
 * steps, it replaces an old run of the history by a summary when the list reaches the trigger, so
 * trimming only has what compaction left to do. It decides from the whole history, so history
 * windows hand it every message (`readsWholeHistory`). Its decisions name the records it made.
 */
export class AutoCompactionFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly readsWholeHistory = true;
  readonly #options: AutoCompactionFilterOptions;

  constructor(options: AutoCompactionFilterOptions) {
    this.id = options.id ?? 'auto-compaction';
    this.#options = options;
  }

  /** The compactor (its records, to persist them without a store). */
  get compactor(): AutoCompactor {
    return this.#options.compactor;
  }

  async apply(messages: readonly Message[], input: BuildInput, context: BuildContext): Promise<FilterResult> {
    const tools = input.tools ?? [];
    const result = await this.#options.compactor.compact({
      messages,
      budgetTokens: this.#options.budgetTokens,
      fixedTokens: tools.length === 0 ? 0 : context.tokenCounter.countTools(tools),
      tokenCounter: context.tokenCounter,
      sessionKey: input.sessionKey ?? this.#options.sessionKey,
      stage: this.id,
      signal: input.signal ?? context.signal,
    });
    return { messages: result.messages, decisions: result.decisions };
  }
}
