import type { ModelMessage } from 'ai';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ContextGovernor } from '../filters/context-governor.js';
import { type GovernorRunState, withGovernorRunState } from '../filters/governor-run-state.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildResult, BuildTrace } from '../pipeline/build-trace.js';
import type { ContextPipeline } from '../pipeline/context-pipeline.js';
import type { AdapterWarning } from './adapter-warning.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

/** What governs each step: a `ContextBuilder` (its filters run through `transform`) or a governor. */
export type PrepareStepSource =
  | { readonly builder: ContextPipeline }
  | { readonly governor: ContextGovernor };

/** One governed step, as reported to {@link CreatePrepareStepOptions.onTrace}. */
export type PrepareStepTrace = {
  readonly stepNumber: number;
  /** The messages sent to the model at this step (ctxloom form). */
  readonly messages: readonly Message[];
  readonly trace: BuildTrace;
  /** Conversion warnings in both directions. */
  readonly warnings: readonly AdapterWarning[];
  /** False when nothing changed and the AI SDK's own messages were sent. */
  readonly changed: boolean;
};

/** Options for {@link createPrepareStep}. */
export type CreatePrepareStepOptions = {
  /** The tool definitions sent with each request (counted against the budget). @default [] */
  readonly tools?: readonly ToolDefinition[];
  /** Extra build input for a builder source (session key, state, …). @default {} */
  readonly input?: BuildInput;
  /** Called after every governed step with its trace. */
  readonly onTrace?: (step: PrepareStepTrace) => void;
  /** Makes ids for messages that have none. @default `ai-sdk-<index>` */
  readonly generateId?: IdGenerator;
};

/** The arguments of the AI SDK's `prepareStep` that ctxloom reads. */
export type PrepareStepArguments = {
  readonly stepNumber: number;
  readonly messages: ModelMessage[];
};

/**
 * Makes an AI SDK v6 `prepareStep` (for `generateText`, `streamText` or `ToolLoopAgent`) that governs
 * every step of the tool loop: the step's messages are converted to ctxloom messages, run through the
 * governor (or the builder's filters), and converted back. The run's initial message count (the
 * in-flight start) is taken from the first step, and one set of compacted tool call ids is kept per
 * run, so compactions stay stable across steps. When nothing changes, it returns `undefined` and the
 * AI SDK sends its own messages. Create one per run, or reuse it: step 0 starts a new run.
 *
 * @example
 * const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(10),
 *   prepareStep: createPrepareStep({ governor }, { tools: toolDefinitions }) });
 */
export function createPrepareStep(
  source: PrepareStepSource,
  options: CreatePrepareStepOptions = {},
): (step: PrepareStepArguments) => Promise<{ messages: ModelMessage[] } | undefined> {
  let initialCount = 0;
  let compactedToolCallIds = new Set<string>();
  return async (step) => {
    if (step.stepNumber === 0) {
      initialCount = step.messages.length;
      compactedToolCallIds = new Set();
    }
    const converted = fromAiSdkMessages(
      step.messages,
      options.generateId === undefined ? {} : { generateId: options.generateId },
    );
    const inflightStartIndex = convertedLength(step.messages.slice(0, initialCount));
    // Ids, not positions: the governor's earlier steps may drop or insert messages before compaction.
    const state: GovernorRunState = {
      inflightStartIndex,
      inflightMessageIds: new Set(converted.messages.slice(inflightStartIndex).map((message) => message.id)),
      compactedToolCallIds,
    };
    const result = await govern(source, converted.messages, { state, options });
    const changed = result.messages !== converted.messages;
    const back = changed ? toAiSdkMessages(result.messages) : { messages: step.messages, warnings: [] };
    options.onTrace?.({
      stepNumber: step.stepNumber,
      messages: result.messages,
      trace: result.trace,
      warnings: [...converted.warnings, ...back.warnings],
      changed,
    });
    return changed ? { messages: [...back.messages] } : undefined;
  };
}

function govern(
  source: PrepareStepSource,
  messages: readonly Message[],
  run: { readonly state: GovernorRunState; readonly options: CreatePrepareStepOptions },
): Promise<BuildResult> {
  const tools = run.options.tools ?? [];
  if ('governor' in source) {
    const { inflightStartIndex, compactedToolCallIds } = run.state;
    return source.governor.prepareForModel(messages, {
      tools,
      ...(inflightStartIndex === undefined ? {} : { inflightStartIndex }),
      ...(compactedToolCallIds === undefined ? {} : { compactedToolCallIds }),
    });
  }
  return source.builder.transform(messages, withGovernorRunState({ ...run.options.input, tools }, run.state));
}

/** How many ctxloom messages `fromAiSdkMessages` makes of these (one per tool result). */
function convertedLength(messages: readonly ModelMessage[]): number {
  let count = 0;
  for (const message of messages) {
    count +=
      message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result').length : 1;
  }
  return count;
}
