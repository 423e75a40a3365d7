import type { JsonObject } from '../core/json.js';
import type { ProviderOptions } from '../core/message.js';
import { extraFields } from './ai-sdk-json.js';
import { readProviderOptions } from './read-ai-sdk-options.js';

/** What every AI SDK object read keeps besides its own fields: its provider options and unknown fields. */
export type ReadCarries = {
  readonly providerOptions: ProviderOptions | undefined;
  readonly fields: JsonObject | undefined;
};

/**
 * The `providerOptions` of an AI SDK object and its fields ctxloom has no field for (`known` are the
 * ones it has; `providerOptions` is always known unless it is not a map of objects, then it is kept
 * among the fields).
 */
export function readCarries(value: object, known: ReadonlySet<string>): ReadCarries {
  const providerOptions = readProviderOptions(value);
  if (providerOptions === 'invalid') {
    const withoutOptions = new Set(known);
    withoutOptions.delete('providerOptions');
    return { providerOptions: undefined, fields: extraFields(value, withoutOptions) };
  }
  return { providerOptions, fields: extraFields(value, known) };
}
