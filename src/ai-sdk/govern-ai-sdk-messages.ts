import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ContextGovernor } from '../filters/context-governor.js';
import { withGovernorRunState } from '../filters/governor-run-state.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildResult, BuildTrace } from '../pipeline/build-trace.js';
import type { ContextPipeline } from '../pipeline/context-pipeline.js';
import type { AiSdkDialect, AiSdkMessageLike } from './ai-sdk-message-like.js';
import { SYSTEM_MESSAGE_ID_PREFIX } from './ai-sdk-system.js';
import { IncrementalAiSdkReader } from './incremental-ai-sdk-reader.js';
import { writeAiSdkMessages } from './write-ai-sdk-messages.js';

/** What governs each AI SDK call: a `ContextBuilder` (its filters run through `transform`) or a governor. */
export type AiSdkGovernorSource =
  | { readonly builder: ContextPipeline }
  | { readonly governor: ContextGovernor };

/** One call to {@link governAiSdkMessages}. */
export type GovernAiSdkRequest = {
  readonly source: AiSdkGovernorSource;
  /** The AI SDK messages of the call (`ModelMessage`s or a provider prompt). */
  readonly messages: readonly unknown[];
  readonly dialect: AiSdkDialect;
  /** Which of `messages` were produced during this run (their tool results may be compacted). */
  readonly inflight: ReadonlySet<unknown>;
  /** System messages counted but not sent back (the `system` of `generateText`). */
  readonly system: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** Call ids compacted so far in this run (the compaction step adds to it). */
  readonly compactedToolCallIds: Set<string>;
  /** Extra build input for a builder source. */
  readonly input?: BuildInput | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly generateId?: IdGenerator | undefined;
  /**
   * The reader of the run's earlier steps (it reads only what is new); `generateId` is then the
   * reader's. @default a new reader
   */
  readonly reader?: IncrementalAiSdkReader | undefined;
};

/** What {@link governAiSdkMessages} returns. */
export type GovernAiSdkResult = {
  /** What to send: the caller's own objects where nothing changed. */
  readonly messages: readonly AiSdkMessageLike[];
  /** For each message sent, the AI SDK message it was written from (`undefined` for a new one). */
  readonly sources: readonly (AiSdkMessageLike | undefined)[];
  /** The governed messages in ctxloom form (without the counted system prompt). */
  readonly governed: readonly Message[];
  readonly trace: BuildTrace;
  readonly warnings: readonly AdapterWarning[];
  /** False when every message sent is the caller's own object, in the caller's order. */
  readonly changed: boolean;
};

/**
 * Governs the messages of one AI SDK call: reads them (remembering their origins; with the run's
 * reader, only the new ones), prepends the counted system prompt, runs the governor or the builder's filters with the run's in-flight
 * messages, and writes the result back losslessly.
 */
export async function governAiSdkMessages(request: GovernAiSdkRequest): Promise<GovernAiSdkResult> {
  const reader =
    request.reader ?? new IncrementalAiSdkReader({ generateId: request.generateId, format: 'AI SDK' });
  const read = reader.read(request.messages, request.system);
  const all = read.messages;
  // The in-flight messages, found from their sources (not by a pass over the history).
  const inflightIds = new Set<string>();
  let start = all.length;
  for (const source of request.inflight) {
    for (const position of read.positionsOf(source)) {
      const message = all[position];
      if (message !== undefined) inflightIds.add(message.id);
      start = Math.min(start, position);
    }
  }
  const result = await govern(all, { ...request, inflightStartIndex: start, inflightIds });
  const governed = result.messages.filter((message) => !message.id.startsWith(SYSTEM_MESSAGE_ID_PREFIX));
  const written = writeAiSdkMessages(governed, {
    dialect: request.dialect,
    origins: read.origins,
    cleanSources: read.cleanSources,
    carryMetadata: false,
    toolPairing: 'repair',
  });
  const changed =
    written.messages.length !== request.messages.length ||
    written.messages.some((message, index) => message !== request.messages[index]);
  return {
    messages: written.messages,
    sources: written.sources,
    governed,
    trace: result.trace,
    warnings: [...read.warnings, ...written.warnings],
    changed,
  };
}

function govern(
  messages: readonly Message[],
  run: GovernAiSdkRequest & {
    readonly inflightStartIndex: number;
    readonly inflightIds: ReadonlySet<string>;
  },
): Promise<BuildResult> {
  const { source, tools, compactedToolCallIds, signal } = run;
  if ('governor' in source) {
    return source.governor.prepareForModel(messages, {
      tools,
      inflightStartIndex: run.inflightStartIndex,
      compactedToolCallIds,
      ...(signal === undefined ? {} : { signal }),
    });
  }
  const input: BuildInput = { ...run.input, tools, ...(signal === undefined ? {} : { signal }) };
  return source.builder.transform(
    messages,
    withGovernorRunState(input, {
      inflightStartIndex: run.inflightStartIndex,
      inflightMessageIds: run.inflightIds,
      compactedToolCallIds,
    }),
  );
}
