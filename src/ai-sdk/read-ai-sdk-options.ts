import type { JsonObject } from '../core/json.js';
import type { ProviderOptions } from '../core/message.js';
import { setField } from '../core/set-field.js';
import { aiSdkJsonObject } from './ai-sdk-json.js';
import { type AiSdkProviderOptions, fieldOf } from './ai-sdk-message-like.js';

/** The `providerOptions` key under which ctxloom carries what an AI SDK message has no field for. */
export const AI_SDK_PROVIDER_KEY = 'ctxloom';

/**
 * The `providerOptions` of an AI SDK message or part as ctxloom keeps them: every provider's options
 * as JSON, without ctxloom's own key (read apart, see `carriedOf`). `undefined` when there are none;
 * `invalid` when an entry is not an object (the whole value is then kept among the native fields).
 */
export function readProviderOptions(value: object): ProviderOptions | undefined | 'invalid' {
  const raw = fieldOf(value, 'providerOptions');
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'invalid';
  const out: Record<string, JsonObject> = {};
  let ours = false;
  for (const [provider, options] of Object.entries(raw)) {
    if (provider === AI_SDK_PROVIDER_KEY) {
      ours = true;
      continue;
    }
    if (options === undefined) continue;
    if (typeof options !== 'object' || options === null || Array.isArray(options)) return 'invalid';
    setField(out, provider, aiSdkJsonObject(options));
  }
  return ours && Object.keys(out).length === 0 ? undefined : out;
}

/** What `toAiSdkMessages` carried in `providerOptions.ctxloom`, if anything. */
export function carriedOf(value: object): { readonly [key: string]: unknown } | undefined {
  const providerOptions = fieldOf(value, 'providerOptions');
  if (typeof providerOptions !== 'object' || providerOptions === null) return undefined;
  const carried = fieldOf(providerOptions, AI_SDK_PROVIDER_KEY);
  // An object under our own key: written by toAiSdkMessages.
  return typeof carried === 'object' && carried !== null
    ? (carried as { readonly [key: string]: unknown })
    : undefined;
}

/**
 * Merges `lifted` (`{ anthropic: { signature } }`, …) into provider options: what a typed field of a
 * ctxloom part holds goes back under its provider.
 */
export function mergeProviderOptions(
  base: ProviderOptions | undefined,
  lifted: AiSdkProviderOptions,
): AiSdkProviderOptions | undefined {
  if (Object.keys(lifted).length === 0) return base;
  const out: Record<string, { readonly [key: string]: unknown }> = { ...base };
  for (const [provider, options] of Object.entries(lifted)) out[provider] = { ...out[provider], ...options };
  return out;
}
