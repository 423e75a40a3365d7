import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { BuildTrace } from './build-trace.js';

/** Which entry point built an observed request. */
export type ObservedRequestSource = 'build' | 'transform' | 'prepare-step' | 'middleware';

/**
 * One request as it was actually built, reported to a {@link RequestObserver} after the last filter
 * ran and before it is returned (so before the model sees it).
 */
export type ObservedRequest = {
  /** `build` / `transform` for a `ContextBuilder` or `ContextGovernor`; the AI SDK integrations name themselves. */
  readonly source: ObservedRequestSource;
  /** The session the request belongs to (`BuildInput.sessionKey`), when known. */
  readonly sessionKey?: string;
  /** Groups the steps of one AI SDK run. */
  readonly runId?: string;
  /** The step within the run, from 0. */
  readonly stepNumber?: number;
  /** The messages built, in ctxloom form. */
  readonly messages: readonly Message[];
  /** The exact messages handed to the model in its own shape (AI SDK `ModelMessage`s or provider prompt), when an integration wrote them. */
  readonly sent?: readonly unknown[];
  /** The tool definitions sent with the request. */
  readonly tools: readonly ToolDefinition[];
  /** What the build did: stages, decisions, tokens per section. */
  readonly trace: BuildTrace;
  /** The model the request is for, when the integration knows it. */
  readonly model?: string;
  /** The provider's usage for the previous step of the same run, when the integration learnt it only now. */
  readonly priorUsage?: ObservedUsage;
};

/** What the provider reported for one request. Every field is optional: report what you have. */
export type ObservedUsage = {
  /** The id `observeRequest` returned for the request; without it, `runId` + `stepNumber` or the latest request is used. */
  readonly requestId?: string;
  readonly runId?: string;
  readonly stepNumber?: number;
  /** Input tokens as the provider counted them (cached ones included). */
  readonly inputTokens?: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  readonly cacheWriteInputTokens?: number;
  readonly outputTokens?: number;
  /** Milliseconds from sending the request to the complete answer. */
  readonly latencyMs?: number;
  /** The model that answered, as the provider named it. */
  readonly model?: string;
};

/**
 * Watches the requests ctxloom builds: a request recorder, a tracing exporter, a test spy. Pass one
 * as `observer` to a `ContextBuilder` (or a preset), a `ContextGovernor`, `createPrepareStep` or
 * `ctxloomMiddleware`. The call is awaited; an observer that throws fails the build, so one that
 * writes to a store says in its own options what it does on a failed write.
 */
export interface RequestObserver {
  readonly specificationVersion: 'v1';
  /** A stable kebab-case id, e.g. `request-recorder`. */
  readonly id: string;
  /** Called with every request built. Returns the id it was recorded under, if it keeps one. */
  observeRequest(request: ObservedRequest): string | undefined | Promise<string | undefined>;
  /** Called when the caller (or an integration) reports what the provider said about a request. */
  observeUsage?(usage: ObservedUsage): void | Promise<void>;
}
