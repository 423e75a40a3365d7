import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { sanitizeToolCallHistory } from './sanitize-tool-call-history.js';

/** Options for {@link SanitizeToolCallsFilter}. */
export type SanitizeToolCallsFilterOptions = {
  /** Makes ids for calls that have none on either side. @default the builder's `context.generateId` */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link SanitizeToolCallsFilterOptions}, for `checkOptions`. @internal */
export const SANITIZE_TOOL_CALLS_FILTER_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<SanitizeToolCallsFilterOptions>;

/**
 * The filter form of {@link sanitizeToolCallHistory} (id `sanitize-tool-calls`): removes broken
 * historical tool-call transactions and orphan results, backfills unambiguous missing call ids, and
 * fails the build on a broken current transaction.
 * @throws ContextError `TOOL_CALL_INTEGRITY` when the transaction that ends the list is broken.
 * @example new ContextBuilder({ providers, filters: [new SanitizeToolCallsFilter(), new TokenBudgetFilter({ maxTokens: 8000 })] })
 */
export class SanitizeToolCallsFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'sanitize-tool-calls';
  readonly #generateId: IdGenerator | undefined;

  constructor(options: SanitizeToolCallsFilterOptions = {}) {
    checkOptions(options, {
      where: 'new SanitizeToolCallsFilter options',
      known: SANITIZE_TOOL_CALLS_FILTER_OPTION_KEYS,
    });
    this.#generateId = options.generateId;
  }

  // biome-ignore lint/complexity/useMaxParams: the ContextFilter contract fixes this signature
  apply(messages: readonly Message[], _input: BuildInput, context: BuildContext): FilterResult {
    return sanitizeToolCallHistory(messages, {
      generateId: this.#generateId ?? context.generateId,
      stage: this.id,
    });
  }
}
