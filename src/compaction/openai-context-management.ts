import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { positiveInteger } from './anthropic-context-management.js';

/** Options for {@link openaiContextManagement}. */
export type OpenAIContextManagementOptions = {
  /**
   * Tokens of context at which the server compacts (`compact_threshold`).
   * @default the server's own (the field is not sent)
   */
  readonly compactThreshold?: number;
};

/** The keys of {@link OpenAIContextManagementOptions}. */
export const OPENAI_CONTEXT_MANAGEMENT_OPTION_KEYS = {
  compactThreshold: true,
} as const satisfies OptionKeys<OpenAIContextManagementOptions>;

/** What {@link openaiContextManagement} returns: spread into `client.responses.create({...})`. */
export type OpenAIContextManagementRequest = {
  /** Shaped as `openai`'s `ResponseCreateParams.ContextManagement[]`. */
  readonly context_management: { readonly type: 'compaction'; readonly compact_threshold?: number }[];
};

/**
 * The request field that turns on OpenAI Responses server-side compaction: past the threshold the
 * response's `output` holds an opaque `compaction` item (`encrypted_content`), which
 * `providerCompactionRecord` turns into a record replayed first on later requests. With stateless
 * requests (`input` holds the conversation) ctxloom sends the item and what follows it; under
 * `previous_response_id` the server holds the history and ctxloom never prunes it.
 * @throws ContextError `INVALID_OPTIONS` for an unknown key or a threshold that is not a positive integer.
 */
export function openaiContextManagement(
  options: OpenAIContextManagementOptions = {},
): OpenAIContextManagementRequest {
  checkOptions(options, {
    where: 'openaiContextManagement options',
    known: OPENAI_CONTEXT_MANAGEMENT_OPTION_KEYS,
  });
  const threshold = options.compactThreshold;
  if (threshold !== undefined) positiveInteger(threshold, { name: 'compactThreshold' });
  return {
    context_management: [
      { type: 'compaction', ...(threshold === undefined ? {} : { compact_threshold: threshold }) },
    ],
  };
}
