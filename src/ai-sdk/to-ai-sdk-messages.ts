import type { ModelMessage } from 'ai';
import type { AdapterWarning } from '../adapters/adapter-warning.js';
import { TOOL_PAIRING_OPTION_KEYS, type ToolPairingOptions } from '../adapters/repair-tool-pairing.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { Message } from '../core/message.js';
import type { AiSdkOrigins } from './ai-sdk-origins.js';
import { writeAiSdkMessages } from './write-ai-sdk-messages.js';

/** Options for {@link toAiSdkMessages}. */
export type ToAiSdkMessagesOptions = ToolPairingOptions & {
  /**
   * Carry ids, names, metadata, image paths and non-JSON tool arguments of messages not read from
   * the AI SDK in `providerOptions.ctxloom`, so `fromAiSdkMessages` restores them exactly (providers
   * ignore keys that are not theirs). @default true
   */
  readonly carryMetadata?: boolean;
  /** The `origins` of a `fromAiSdkMessages` result: messages read there come back as they were. */
  readonly origins?: AiSdkOrigins;
};

/** The keys of {@link ToAiSdkMessagesOptions}, for `checkOptions`. @internal */
export const TO_AI_SDK_MESSAGES_OPTION_KEYS = {
  ...TOOL_PAIRING_OPTION_KEYS,
  carryMetadata: true,
  origins: true,
} as const satisfies OptionKeys<ToAiSdkMessagesOptions>;

/** What {@link toAiSdkMessages} returns: messages to pass to `generateText` and what did not convert exactly. */
export type ToAiSdkMessagesResult = {
  readonly messages: ModelMessage[];
  readonly warnings: readonly AdapterWarning[];
};

/**
 * Converts messages to AI SDK `ModelMessage`s (valid in AI SDK 6 and 7). A message read by
 * `fromAiSdkMessages` (pass its `origins`) comes back as the same object when unchanged, or as the
 * original with only the fields ctxloom changed. Other messages are written new: text, image (`data:`
 * URLs as base64 with a media type, other URLs as `URL`) and file parts; reasoning as a `reasoning`
 * part; tool calls as `tool-call` parts with the arguments parsed to `input`; each tool result as a
 * `tool` message with one `tool-result` part (`text`, `error-text` for `metadata.isError`, or
 * `content` when it has images), its `toolName` taken from the call. Pairing is made legal and lone
 * surrogates are replaced; everything changed or left out is named in the warnings.
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `toolPairing: 'throw'` and a broken pairing.
 */
export function toAiSdkMessages(
  messages: readonly Message[],
  options: ToAiSdkMessagesOptions = {},
): ToAiSdkMessagesResult {
  checkOptions(options, { where: 'toAiSdkMessages options', known: TO_AI_SDK_MESSAGES_OPTION_KEYS });
  const result = writeAiSdkMessages(messages, {
    dialect: 'model-message',
    origins: options.origins,
    carryMetadata: options.carryMetadata ?? true,
    toolPairing: options.toolPairing ?? 'repair',
  });
  // The writer gives back the caller's ModelMessages or writes parts valid in ModelMessage 6 and 7
  // (checked against both majors' modelMessageSchema in the tests).
  return { messages: [...result.messages] as unknown as ModelMessage[], warnings: result.warnings };
}
