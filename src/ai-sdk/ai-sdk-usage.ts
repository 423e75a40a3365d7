import type { ObservedUsage } from '../pipeline/request-observer.js';
import { fieldOf } from './ai-sdk-message-like.js';

/**
 * Reads the provider's usage from an AI SDK step or result (`generateText`'s `steps[i]`, the
 * `onStepFinish` argument, the result itself) or from a provider-level `doGenerate` result, for a
 * `RequestObserver`: input, cached input, cache-write and output tokens and the model that answered.
 * Reads AI SDK 6 and 7 shapes (`inputTokenDetails.cacheReadTokens`, the older `cachedInputTokens`, and
 * the provider's `{ inputTokens: { total, cacheRead } }`); fields the step lacks are left out.
 *
 * @example
 * await generateText({ …, onStepFinish: (step) => recorder.observeUsage(aiSdkUsage(step)) });
 */
export function aiSdkUsage(step: unknown): ObservedUsage {
  if (typeof step !== 'object' || step === null) return {};
  const usage = objectOf(step, 'usage') ?? {};
  const input = fieldOf(usage, 'inputTokens');
  const output = fieldOf(usage, 'outputTokens');
  const details = objectOf(usage, 'inputTokenDetails');
  const cached =
    numberOf(details, 'cacheReadTokens') ??
    numberOf(usage, 'cachedInputTokens') ??
    (isObject(input) ? numberOf(input, 'cacheRead') : undefined);
  const cacheWrite =
    numberOf(details, 'cacheWriteTokens') ?? (isObject(input) ? numberOf(input, 'cacheWrite') : undefined);
  const model = stringOf(objectOf(step, 'response'), 'modelId');
  return {
    ...defined('inputTokens', isObject(input) ? numberOf(input, 'total') : asNumber(input)),
    ...defined('cachedInputTokens', cached),
    ...defined('cacheWriteInputTokens', cacheWrite),
    ...defined('outputTokens', isObject(output) ? numberOf(output, 'total') : asNumber(output)),
    ...(model === undefined ? {} : { model }),
  };
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function objectOf(value: object | undefined, key: string): object | undefined {
  if (value === undefined) return undefined;
  const field = fieldOf(value, key);
  return isObject(field) ? field : undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function numberOf(value: object | undefined, key: string): number | undefined {
  return value === undefined ? undefined : asNumber(fieldOf(value, key));
}

function stringOf(value: object | undefined, key: string): string | undefined {
  const field = value === undefined ? undefined : fieldOf(value, key);
  return typeof field === 'string' ? field : undefined;
}

function defined<TKey extends string>(
  key: TKey,
  value: number | undefined,
): { readonly [K in TKey]?: number } {
  // A one-key object built from a literal key: the mapped type is exactly that key.
  return (value === undefined ? {} : { [key]: value }) as { readonly [K in TKey]?: number };
}
