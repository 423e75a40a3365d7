import type { ModelMessage } from 'ai';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { RequestObserver } from '../pipeline/request-observer.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { type AiSdkSystem, aiSdkSystemMessages } from './ai-sdk-system.js';
import { type AiSdkToolSet, aiSdkToolDefinitions } from './ai-sdk-tool-definitions.js';
import { aiSdkUsage } from './ai-sdk-usage.js';
import { type AiSdkGovernorSource, governAiSdkMessages } from './govern-ai-sdk-messages.js';
import { IncrementalAiSdkReader } from './incremental-ai-sdk-reader.js';
import {
  AI_SDK_ANTHROPIC_CACHE_OPTION_KEYS,
  type AiSdkAnthropicCacheOptions,
  markAiSdkCacheBreakpoints,
} from './mark-ai-sdk-cache-breakpoints.js';

/** Options for {@link createPrepareStep}. */
export type CreatePrepareStepOptions = {
  /** The same `tools` object passed to `generateText`/`streamText`/`ToolLoopAgent` (counted against the budget). */
  readonly tools?: AiSdkToolSet;
  /**
   * The same `system` passed to `generateText` (the AI SDK does not give it to `prepareStep`), counted
   * against the budget and never cut. AI SDK 7 passes its `instructions` to `prepareStep`: those are
   * counted instead. @default none
   */
  readonly system?: AiSdkSystem;
  /** Extra build input for a builder source (session key, state, …). @default {} */
  readonly input?: BuildInput;
  /** Called after every governed step (for a request recorder or tracing). */
  readonly onStep?: (step: AiSdkStepTrace<ModelMessage>) => void;
  /**
   * Told about every governed step (a request recorder, tracing), with the `ModelMessage`s sent and
   * the provider's usage of the run's previous step. Report the last step's usage yourself, e.g.
   * `onStepFinish: (step) => observer.observeUsage(aiSdkUsage(step))`. @default none
   */
  readonly observer?: RequestObserver;
  /** Makes run ids and ids for messages that carry none. @default `run-<n>` and `ai-sdk-<index>` */
  readonly generateId?: IdGenerator;
  /** Cancels governing (pass the `abortSignal` given to `generateText`); throws `ABORTED`. */
  readonly signal?: AbortSignal;
  /**
   * Anthropic prompt caching: `auto` (or options) sets `providerOptions.anthropic.cacheControl` on the
   * conversation tail, the previous request's end and the last system message (at most four markers
   * with the caller's own, never below the minimum cacheable length). @default 'off'
   */
  readonly cache?: 'auto' | 'off' | AiSdkAnthropicCacheOptions;
};

/** The keys of {@link CreatePrepareStepOptions}, for `checkOptions`. @internal */
export const CREATE_PREPARE_STEP_OPTION_KEYS = {
  tools: true,
  system: true,
  input: true,
  onStep: true,
  observer: true,
  generateId: true,
  signal: true,
  cache: true,
} as const satisfies OptionKeys<CreatePrepareStepOptions>;

/** One step of an AI SDK run, as the AI SDK reports it to `prepareStep`. */
export type AiSdkStepLike = { readonly response: { readonly messages: readonly unknown[] } };

/** The arguments of the AI SDK's `prepareStep` that ctxloom reads (AI SDK 6 and 7). */
export type PrepareStepArguments = {
  readonly stepNumber: number;
  readonly messages: ModelMessage[];
  /** The run's steps so far: the same array at every step of one run. */
  readonly steps?: readonly AiSdkStepLike[];
  /** AI SDK 7: the run's initial messages. */
  readonly initialMessages?: readonly ModelMessage[];
  /** AI SDK 7: the instructions (system prompt) in effect for this step. */
  readonly instructions?: AiSdkSystem | undefined;
};

/** What the `prepareStep` made by {@link createPrepareStep} is. */
export type CtxloomPrepareStep = (
  step: PrepareStepArguments,
) => Promise<{ messages: ModelMessage[] } | undefined>;

type RunState = {
  readonly runId: string;
  readonly compactedToolCallIds: Set<string>;
  /** Reads each message of the run once (see IncrementalAiSdkReader). */
  readonly reader: IncrementalAiSdkReader;
};

/**
 * Makes a `prepareStep` for `generateText`, `streamText` or `ToolLoopAgent` (AI SDK 6 and 7) that
 * governs every step of the tool loop: the step's messages go through the governor (or the builder's
 * filters) with the system prompt and the tools counted, and come back losslessly (unchanged messages
 * are the AI SDK's own objects; changed ones keep every field ctxloom does not own). It keeps no run
 * state of its own: the in-flight results are told apart from the history by the step's arguments
 * (AI SDK 6: the run's response messages; AI SDK 7: `initialMessages`), and the compacted call ids
 * are kept per run (keyed by the run's `steps` array), so one `prepareStep` serves interleaved runs.
 * Each message of a run is read once: a step whose messages start with the previous step's (the same
 * objects, as the AI SDK passes them) reads only its new ones and gives the governor the same ctxloom
 * objects, so what it cached by identity is reused; a message replaced, or edited in place in its
 * `role`, `content` or `providerOptions`, makes the step read every message again (an edit inside a
 * part is not seen: replace the message instead). When nothing changes it returns `undefined` and
 * the AI SDK sends its own messages. A governor source also leaves out, per run, the oldest history
 * messages it is certain to snip before its steps run (see `ContextGovernorOptions.historyWindow`), so
 * a +1 step governs what is new plus the kept window; what is sent is the same.
 *
 * @example
 * const result = await generateText({ model, tools, system, messages, stopWhen: stepCountIs(20),
 *   prepareStep: createPrepareStep({ governor }, { tools, system }) });
 */
export function createPrepareStep(
  source: AiSdkGovernorSource,
  options: CreatePrepareStepOptions = {},
): CtxloomPrepareStep {
  checkOptions(options, {
    where: 'createPrepareStep options',
    known: CREATE_PREPARE_STEP_OPTION_KEYS,
    nested: { cache: { known: AI_SDK_ANTHROPIC_CACHE_OPTION_KEYS } },
  });
  const runs = new WeakMap<object, RunState>();
  const produced = new WeakMap<object, object>();
  let runCount = 0;
  const counter = new EstimatingTokenCounter();
  const initialSets = new WeakMap<readonly ModelMessage[], ReadonlySet<object>>();
  // The system messages of the last system prompt seen: the same objects while it is the same.
  let lastSystem: { readonly from: AiSdkSystem | undefined; readonly messages: readonly Message[] } = {
    from: undefined,
    messages: [],
  };
  const systemOf = (from: AiSdkSystem | undefined): readonly Message[] => {
    if (from !== lastSystem.from) lastSystem = { from, messages: aiSdkSystemMessages(from) };
    return lastSystem.messages;
  };
  let tools: Promise<readonly ToolDefinition[]> | undefined;
  const runOf = (step: PrepareStepArguments): RunState => {
    const key = step.steps;
    const known = key === undefined ? undefined : runs.get(key);
    if (known !== undefined) return known;
    runCount += 1;
    const state = {
      runId: options.generateId?.() ?? `run-${runCount}`,
      compactedToolCallIds: new Set<string>(),
      reader: new IncrementalAiSdkReader({ generateId: options.generateId, format: 'AI SDK' }),
    };
    if (key !== undefined) runs.set(key, state);
    return state;
  };
  return async (step) => {
    tools ??= aiSdkToolDefinitions(options.tools ?? {});
    const run = runOf(step);
    const system = systemOf(step.instructions ?? options.system);
    const result = await governAiSdkMessages({
      source,
      messages: step.messages,
      dialect: 'model-message',
      inflight: inflightOf(step, { produced, initialSets }),
      system,
      tools: await tools,
      compactedToolCallIds: run.compactedToolCallIds,
      input: options.input,
      signal: options.signal,
      generateId: options.generateId,
      reader: run.reader,
    });
    result.messages.forEach((message, index) => {
      const from = result.sources[index];
      if (from !== undefined && from !== message) produced.set(message, produced.get(from) ?? from);
    });
    // The writer gives back the AI SDK's own ModelMessages or writes shapes valid in AI SDK 6 and 7.
    const governed = (result.changed ? result.messages : step.messages) as readonly ModelMessage[];
    const cache = options.cache ?? 'off';
    const sent =
      cache === 'off'
        ? governed
        : // Marked copies are the same ModelMessages with one more providerOptions entry.
          (markAiSdkCacheBreakpoints(governed, {
            options: cache === 'auto' ? {} : cache,
            leadingTokens: result.trace.toolTokens + counter.countMessages(system),
          }).messages as readonly ModelMessage[]);
    sent.forEach((message, index) => {
      const from = governed[index];
      if (from !== undefined && from !== message) produced.set(message, produced.get(from) ?? from);
    });
    const changed =
      sent.length !== step.messages.length || sent.some((message, index) => message !== step.messages[index]);
    options.onStep?.({
      via: 'prepare-step',
      runId: run.runId,
      stepNumber: step.stepNumber,
      sent,
      messages: result.governed,
      trace: result.trace,
      warnings: result.warnings,
      changed,
    });
    const previous = step.steps?.at(-1);
    await options.observer?.observeRequest({
      source: 'prepare-step',
      runId: run.runId,
      stepNumber: step.stepNumber,
      messages: result.governed,
      sent,
      tools: await tools,
      trace: result.trace,
      ...(options.input?.sessionKey === undefined ? {} : { sessionKey: options.input.sessionKey }),
      ...(previous === undefined
        ? {}
        : { priorUsage: { ...aiSdkUsage(previous), runId: run.runId, stepNumber: step.stepNumber - 1 } }),
    });
    return changed ? { messages: [...sent] } : undefined;
  };
}

/**
 * The messages of this step produced during the run. AI SDK 7 passes `initialMessages` (and carries
 * what `prepareStep` returned into the next step): everything not read from them is in flight. AI SDK
 * 6 sends the initial messages plus the run's response messages, which the last step lists.
 */
function inflightOf(
  step: PrepareStepArguments,
  known: {
    readonly produced: WeakMap<object, object>;
    readonly initialSets: WeakMap<readonly ModelMessage[], ReadonlySet<object>>;
  },
): ReadonlySet<unknown> {
  const { produced, initialSets } = known;
  if (step.initialMessages !== undefined) {
    // The same array at every step of a run: its set is made once.
    const initial = initialSets.get(step.initialMessages) ?? new Set<object>(step.initialMessages);
    initialSets.set(step.initialMessages, initial);
    return new Set(step.messages.filter((message) => !initial.has(produced.get(message) ?? message)));
  }
  const count = step.steps?.at(-1)?.response.messages.length ?? 0;
  return new Set(step.messages.slice(step.messages.length - count));
}
