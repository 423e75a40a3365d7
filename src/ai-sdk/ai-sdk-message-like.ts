/**
 * The structural shape shared by every AI SDK message ctxloom reads: `ModelMessage` of AI SDK 6 and 7
 * and the provider-level prompt of `LanguageModelV3` and `LanguageModelV4` (what a middleware's
 * `transformParams` receives). ctxloom reads the fields it understands and keeps every other field and
 * part as it is, so one code path serves both majors.
 */
export type AiSdkMessageLike = {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string | readonly AiSdkPartLike[];
  readonly providerOptions?: AiSdkProviderOptions;
};

/** Any part of an AI SDK message: a `type` and fields that depend on it. */
export type AiSdkPartLike = { readonly type: string; readonly [field: string]: unknown };

/** Provider-specific options: `{ [provider]: { [key]: JSON } }`. */
export type AiSdkProviderOptions = { readonly [provider: string]: { readonly [key: string]: unknown } };

/**
 * Which AI SDK shape is written for parts ctxloom creates: `model-message` (`ModelMessage`, valid in
 * AI SDK 6 and 7), `prompt-v3` (`LanguageModelV3Prompt`, AI SDK 6 providers) or `prompt-v4`
 * (`LanguageModelV4Prompt`, AI SDK 7 providers: file data is a tagged `{ type: 'data' | 'url' }`).
 */
export type AiSdkDialect = 'model-message' | 'prompt-v3' | 'prompt-v4';

/** Reads one field of a part or message of unknown shape. */
export function fieldOf(value: object, key: string): unknown {
  // A property read on an object: the value is narrowed by the caller.
  return (value as { readonly [key: string]: unknown })[key];
}

/** Reads a string field of a part or message of unknown shape (`undefined` when it is not a string). */
export function stringOf(value: object, key: string): string | undefined {
  const field = fieldOf(value, key);
  return typeof field === 'string' ? field : undefined;
}
