import type { JsonObject, JsonValue } from '../core/json.js';
import type { NativeFields, ProviderOptions } from '../core/message.js';
import type { AiSdkProviderOptions } from './ai-sdk-message-like.js';

/** The `native` key (and `ProviderPart.format`) of what the AI SDK adapters keep. */
export const AI_SDK_FORMAT = 'ai-sdk';

/** How the data of an image or file part was given, when the writer's default would not give it back. */
export type AiSdkDataForm = 'url-string' | 'data-url' | 'tagged';

/**
 * What `native['ai-sdk']` holds on a ctxloom message, part or tool call read from the AI SDK: the
 * fields of the AI SDK object ctxloom has no field for (`fields`), and how to write the object back
 * exactly where a ctxloom field allows several AI SDK shapes. Each is set only when the writer's
 * default would not give the input back, so messages written by ctxloom read back without it.
 */
export type AiSdkNative = {
  /** Fields of the AI SDK object ctxloom has no field for, verbatim (as JSON). */
  readonly fields?: JsonObject;
  /** The message carried no ctxloom id (it was made by the reader): not carried when written back. */
  readonly generatedId?: true;
  /** Assistant: the positions of the `tool-call` parts among the parts, when not all at the end. */
  readonly callIndexes?: readonly number[];
  /** Tool: this result was in the same AI SDK tool message as the one before. */
  readonly joinsPrevious?: true;
  /** Tool: the `providerOptions` of the AI SDK tool message (the message's own are the result part's). */
  readonly messageProviderOptions?: ProviderOptions;
  /** Tool: fields of the AI SDK tool message ctxloom has no field for. */
  readonly messageFields?: JsonObject;
  /** Tool: fields of the result's `output` besides `type` and `value` (its `providerOptions`, …). */
  readonly outputFields?: JsonObject;
  /** Tool: an `execution-denied` output without a `reason`. */
  readonly deniedWithoutReason?: true;
  /** Tool: an output of a type ctxloom does not know, verbatim (written back while `content` is `''`). */
  readonly rawOutput?: JsonObject;
  /** Tool: the message holds a part of an AI SDK tool message that is not a result (an approval response). */
  readonly toolPart?: true;
  /** Tool call: `input` was a string (`arguments` is that string). */
  readonly stringInput?: true;
  /** Media: how the data was given. */
  readonly dataForm?: AiSdkDataForm;
  /** Media: the AI SDK part had no `mediaType`. */
  readonly noMediaType?: true;
  /** Tool output item: its `type`, when not the one the writer picks. */
  readonly itemType?: string;
  /** Message: the first reasoning part is the ctxloom `reasoning` field (carried by `toAiSdkMessages`). */
  readonly reasoningField?: true;
};

/** The `native['ai-sdk']` of a value (empty when it has none, or it is not an object). */
export function aiSdkNativeOf(value: { readonly native?: NativeFields | undefined }): AiSdkNative {
  const native = value.native?.[AI_SDK_FORMAT];
  // Written by the AI SDK reader: each field read below is checked before use.
  return native === undefined ? {} : (native as AiSdkNative);
}

/** `{ native: { 'ai-sdk': native } }`, or `{}` when `native` has no field. */
export function nativeEntry(
  native: { readonly [TKey in keyof AiSdkNative]?: AiSdkNative[TKey] | undefined },
): {
  readonly native?: NativeFields;
} {
  const entries = Object.entries(native).filter(([, field]) => field !== undefined);
  if (entries.length === 0) return {};
  // AiSdkNative is JSON: strings, numbers, booleans, arrays of numbers and JSON objects.
  return { native: { [AI_SDK_FORMAT]: Object.fromEntries(entries) as { [key: string]: JsonValue } } };
}

/** `{ providerOptions }`, or `{}` when there are none. */
export function providerOptionsEntry<TOptions extends ProviderOptions | AiSdkProviderOptions>(
  providerOptions: TOptions | undefined,
): { readonly providerOptions?: TOptions } {
  return providerOptions === undefined ? {} : { providerOptions };
}
