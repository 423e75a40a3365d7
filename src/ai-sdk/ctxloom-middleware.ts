import type { LanguageModelMiddleware } from 'ai';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { RequestObserver } from '../pipeline/request-observer.js';
import { type AiSdkMessageLike, fieldOf } from './ai-sdk-message-like.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { promptToolDefinitions } from './ai-sdk-tool-definitions.js';
import { aiSdkUsage } from './ai-sdk-usage.js';
import { type AiSdkGovernorSource, governAiSdkMessages } from './govern-ai-sdk-messages.js';
import {
  AI_SDK_ANTHROPIC_CACHE_OPTION_KEYS,
  type AiSdkAnthropicCacheOptions,
  markAiSdkCacheBreakpoints,
} from './mark-ai-sdk-cache-breakpoints.js';
import { AI_SDK_PROVIDER_KEY } from './read-ai-sdk-messages.js';

/** Options for {@link ctxloomMiddleware}. */
export type CtxloomMiddlewareOptions = {
  /** Extra build input for a builder source (session key, state, …). @default {} */
  readonly input?: BuildInput;
  /** Called after every governed model call with the provider prompt sent. */
  readonly onStep?: (step: AiSdkStepTrace<AiSdkMessageLike>) => void;
  /**
   * Makes a run id for calls that name none (name one with
   * `providerOptions: { ctxloom: { runId } }` on the `generateText` call). @default `call-<n>`
   */
  readonly generateId?: IdGenerator;
  /**
   * Told about every governed call (a request recorder, tracing) with the provider prompt sent, and,
   * for `generateText` calls, the usage and latency the provider reported. @default none
   */
  readonly observer?: RequestObserver;
  /**
   * Anthropic prompt caching: `auto` (or options) sets `providerOptions.anthropic.cacheControl` on the
   * conversation tail, the previous call's end, the last system message and the last tool (at most
   * four markers with the caller's own, never below the minimum cacheable length). @default 'off'
   */
  readonly cache?: 'auto' | 'off' | AiSdkAnthropicCacheOptions;
};

/** The keys of {@link CtxloomMiddlewareOptions}, for `checkOptions`. @internal */
export const CTXLOOM_MIDDLEWARE_OPTION_KEYS = {
  input: true,
  onStep: true,
  generateId: true,
  observer: true,
  cache: true,
} as const satisfies OptionKeys<CtxloomMiddlewareOptions>;

/**
 * An AI SDK language model middleware (`wrapLanguageModel({ model, middleware })`, AI SDK 6 and 7)
 * that governs every call to the model, inside a tool loop or not: the provider-level prompt (system
 * messages included) and the function tools are counted, the governor (or the builder's filters) runs,
 * and the prompt is written back losslessly (unchanged messages are the AI SDK's own objects; changed
 * ones keep their `providerOptions`, signatures and output types). It keeps no state: the in-flight
 * messages of a call are those after its last user message, and the step number is the count of
 * assistant messages among them. Each call reads its whole prompt: the AI SDK converts the prompt anew
 * for every call (no message object is shared between two calls), so there is no identity to reuse
 * what earlier calls read (`createPrepareStep` reads only a step's new messages).
 *
 * @example
 * const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: ctxloomMiddleware({ governor }) });
 */
export function ctxloomMiddleware(
  source: AiSdkGovernorSource,
  options: CtxloomMiddlewareOptions = {},
): LanguageModelMiddleware {
  checkOptions(options, {
    where: 'ctxloomMiddleware options',
    known: CTXLOOM_MIDDLEWARE_OPTION_KEYS,
    nested: { cache: { known: AI_SDK_ANTHROPIC_CACHE_OPTION_KEYS } },
  });
  let callCount = 0;
  const requestIds = new WeakMap<object, string>();
  const observer = options.observer;
  return {
    specificationVersion: 'v3',
    ...(observer === undefined ? {} : { wrapGenerate: observedGenerate(observer, requestIds) }),
    transformParams: async ({ params, model }) => {
      const prompt: readonly object[] = params.prompt;
      const lastUser = prompt.findLastIndex((message) => fieldOf(message, 'role') === 'user');
      const inflight = prompt.slice(lastUser + 1);
      callCount += 1;
      const result = await governAiSdkMessages({
        source,
        messages: prompt,
        dialect: fieldOf(model, 'specificationVersion') === 'v4' ? 'prompt-v4' : 'prompt-v3',
        inflight: new Set(inflight),
        system: [],
        tools: promptToolDefinitions(params.tools),
        compactedToolCallIds: new Set(),
        input: options.input,
        signal: params.abortSignal,
      });
      const step: AiSdkStepTrace<AiSdkMessageLike> = {
        via: 'middleware',
        runId: runIdOf(params.providerOptions) ?? options.generateId?.() ?? `call-${callCount}`,
        stepNumber: inflight.filter((message) => fieldOf(message, 'role') === 'assistant').length,
        // Read and checked as AI SDK messages by governAiSdkMessages.
        sent: result.changed ? result.messages : (prompt as readonly AiSdkMessageLike[]),
        messages: result.governed,
        trace: result.trace,
        warnings: result.warnings,
        changed: result.changed,
      };
      options.onStep?.(step);
      // The writer gives back the provider's own prompt messages or writes parts of the model's
      // prompt version (v3 or v4), so the result has the type of the prompt it was given.
      const governed = result.changed
        ? { ...params, prompt: result.messages as typeof params.prompt }
        : params;
      const cache = options.cache ?? 'off';
      const marked =
        cache === 'off'
          ? undefined
          : markAiSdkCacheBreakpoints(governed.prompt, {
              tools: governed.tools,
              options: cache === 'auto' ? {} : cache,
            });
      const next =
        marked === undefined
          ? governed
          : {
              ...governed,
              prompt: marked.messages as typeof params.prompt,
              ...(marked.tools === undefined ? {} : { tools: marked.tools as typeof params.tools }),
            };
      const requestId = await observer?.observeRequest({
        source: 'middleware',
        runId: step.runId,
        stepNumber: step.stepNumber,
        messages: result.governed,
        sent: step.sent,
        tools: promptToolDefinitions(params.tools),
        trace: result.trace,
        ...(typeof model.modelId === 'string' ? { model: model.modelId } : {}),
        ...(options.input?.sessionKey === undefined ? {} : { sessionKey: options.input.sessionKey }),
      });
      if (requestId !== undefined) requestIds.set(next, requestId);
      return next;
    },
  };
}

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;

/** Reports the usage and latency of each `doGenerate` to the observer, under the request's id. */
function observedGenerate(observer: RequestObserver, requestIds: WeakMap<object, string>): WrapGenerate {
  return async ({ doGenerate, params }) => {
    // Latency is wall time by nature; the middleware has no injected clock.
    const started = performance.now();
    const result = await doGenerate();
    const requestId = requestIds.get(params);
    await observer.observeUsage?.({
      ...aiSdkUsage(result),
      latencyMs: performance.now() - started,
      ...(requestId === undefined ? {} : { requestId }),
    });
    return result;
  };
}

function runIdOf(providerOptions: unknown): string | undefined {
  if (typeof providerOptions !== 'object' || providerOptions === null) return undefined;
  const ours = fieldOf(providerOptions, AI_SDK_PROVIDER_KEY);
  const runId = typeof ours === 'object' && ours !== null ? fieldOf(ours, 'runId') : undefined;
  return typeof runId === 'string' ? runId : undefined;
}
