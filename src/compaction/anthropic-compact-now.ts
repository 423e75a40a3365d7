import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ANTHROPIC_COMPACT_NOW_BETA } from './anthropic-context-management.js';

/** Options for {@link anthropicCompactNow}. */
export type AnthropicCompactNowOptions = {
  /**
   * Replaces the server's summary prompt for this request (Anthropic: "an empty or whitespace-only
   * value counts as absent", so such a value is not sent).
   */
  readonly instructions?: string;
};

/** The keys of {@link AnthropicCompactNowOptions}. */
export const ANTHROPIC_COMPACT_NOW_OPTION_KEYS = {
  instructions: true,
} as const satisfies OptionKeys<AnthropicCompactNowOptions>;

/** What {@link anthropicCompactNow} returns: spread into `client.beta.messages.create({...})`. */
export type AnthropicCompactNowRequest = {
  /** Shaped as `@anthropic-ai/sdk`'s `BetaCompactionConfig`. */
  readonly compaction: { readonly type: 'summarize'; readonly instructions?: string };
  readonly betas: string[];
};

/**
 * The request fields of Anthropic's on-demand compaction (beta `compact-2026-09-04`): the request
 * summarises the whole conversation and the response holds only a signed `compaction` block
 * (`stop_reason: 'compaction'`), which `providerCompactionRecord` turns into a record. It cannot be
 * combined with `context_management`; keep `tools` and `system` as in the agent's requests (the cache
 * prefix stays, and the block's `tool_changes` are relative to them).
 * @throws ContextError `INVALID_OPTIONS` for an unknown key.
 */
export function anthropicCompactNow(options: AnthropicCompactNowOptions = {}): AnthropicCompactNowRequest {
  checkOptions(options, { where: 'anthropicCompactNow options', known: ANTHROPIC_COMPACT_NOW_OPTION_KEYS });
  const instructions = options.instructions;
  return {
    compaction: {
      type: 'summarize',
      ...(instructions === undefined || instructions.trim() === '' ? {} : { instructions }),
    },
    betas: [ANTHROPIC_COMPACT_NOW_BETA],
  };
}
