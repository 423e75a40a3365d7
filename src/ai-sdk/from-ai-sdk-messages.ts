import type { ModelMessage } from 'ai';
import type { AdapterResult } from '../adapters/adapter-warning.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { AiSdkOrigins } from './ai-sdk-origins.js';
import { readAiSdkMessages } from './read-ai-sdk-messages.js';

/** Options for {@link fromAiSdkMessages}. */
export type FromAiSdkMessagesOptions = {
  /** Makes ids for messages that carry none in `providerOptions.ctxloom`. @default `ai-sdk-<index>` */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link FromAiSdkMessagesOptions}, for `checkOptions`. @internal */
export const FROM_AI_SDK_MESSAGES_OPTION_KEYS = {
  generateId: true,
} as const satisfies OptionKeys<FromAiSdkMessagesOptions>;

/** What {@link fromAiSdkMessages} returns: the messages, the warnings, and where each message came from. */
export type FromAiSdkMessagesResult = AdapterResult<Message> & {
  /** Pass to `toAiSdkMessages({ origins })` to get the original objects back. */
  readonly origins: AiSdkOrigins;
};

/**
 * Converts AI SDK `ModelMessage`s (AI SDK 6 or 7) into ctxloom messages, remembering where each came
 * from: `toAiSdkMessages(messages, { origins })` then gives back the very same object for every
 * message ctxloom did not change, and keeps every field ctxloom does not own on the ones it changed
 * (`providerOptions` such as Anthropic `cacheControl`, reasoning signatures, tool output types, parts
 * ctxloom has no form for). A `tool` message with several results becomes several tool messages;
 * `error-text`, `error-json` and `execution-denied` outputs are marked `metadata.isError`. What
 * `toAiSdkMessages` carried in `providerOptions.ctxloom` (ids, names, metadata, exact tool arguments)
 * is restored, so `fromAiSdkMessages(toAiSdkMessages(x).messages).messages` equals `x` apart from
 * what the warnings name.
 * @throws ContextError `INVALID_INPUT` naming the path of a field that is not a `ModelMessage`.
 */
export function fromAiSdkMessages(
  input: readonly ModelMessage[],
  options: FromAiSdkMessagesOptions = {},
): FromAiSdkMessagesResult {
  checkOptions(options, { where: 'fromAiSdkMessages options', known: FROM_AI_SDK_MESSAGES_OPTION_KEYS });
  return readAiSdkMessages(input, { generateId: options.generateId, format: 'AI SDK' });
}
