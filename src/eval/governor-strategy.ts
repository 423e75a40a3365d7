import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { system } from '../core/factories.js';
import { ContextGovernor, type ContextGovernorOptions } from '../filters/context-governor.js';
import { carryDeferredTools } from './carry-deferred-tools.js';
import type { EvalStrategy } from './eval-strategy.js';

/** Options for {@link governorStrategy}. */
export type GovernorStrategyOptions = {
  /** @default 'ctxloom-governor' */
  readonly id?: string;
  /** @default 'ctxloom ContextGovernor' */
  readonly label?: string;
  /** More governor options (the budget and counter come from the run). @default {} */
  readonly governor?: Omit<ContextGovernorOptions, 'contextWindowTokens' | 'blockLimit' | 'tokenCounter'>;
  /** Whether this is a default configuration the invariants apply to. @default true */
  readonly isDefault?: boolean;
};

const GOVERNOR_STRATEGY_OPTION_KEYS = {
  id: true,
  label: true,
  governor: true,
  isDefault: true,
} as const satisfies OptionKeys<GovernorStrategyOptions>;

/** The output reserve the eval puts in the governor's window (the budget is set with `blockLimit`). */
const OUTPUT_RESERVE_TOKENS = 8_192;

/**
 * `ContextGovernor.prepareForModel` over the system prompt, the whole stored history, the user
 * message and the turn's in-flight messages, with the run's budget as its `blockLimit` and one
 * compaction set per turn (nanobot's loop).
 */
export function governorStrategy(options: GovernorStrategyOptions = {}): EvalStrategy {
  checkOptions(options, { where: 'governorStrategy options', known: GOVERNOR_STRATEGY_OPTION_KEYS });
  return {
    specificationVersion: 'v1',
    id: options.id ?? 'ctxloom-governor',
    label: options.label ?? 'ctxloom ContextGovernor',
    usesSummariser: false,
    isDefault: options.isDefault ?? true,
    anthropicCache: 'planned',
    async start(setup) {
      const governor = new ContextGovernor({
        ...options.governor,
        contextWindowTokens: setup.budgetTokens + OUTPUT_RESERVE_TOKENS + 1_024,
        maxOutputTokens: OUTPUT_RESERVE_TOKENS,
        blockLimit: setup.budgetTokens,
        tokenCounter: setup.tokenCounter,
      });
      const prompt = system(setup.systemPrompt, { id: 'eval-system' });
      let compacted = new Set<string>();
      return {
        async messagesFor(call) {
          if (call.step === 0) compacted = new Set();
          const messages = [prompt, ...call.history, call.user, ...call.inflight];
          const result = await governor.prepareForModel(messages, {
            inflightStartIndex: messages.length - call.inflight.length,
            compactedToolCallIds: compacted,
            tools: setup.tools,
            ...(setup.signal === undefined ? {} : { signal: setup.signal }),
          });
          return carryDeferredTools(result.messages, { setup, call });
        },
      };
    },
  };
}
