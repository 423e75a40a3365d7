import { traceDecisions } from '../pipeline/build-trace.js';
import type { ObservedRequest, ObservedUsage, RequestObserver } from '../pipeline/request-observer.js';
import { RecentRequests } from '../recorder/recent-requests.js';
import { loadOpenTelemetry } from './load-open-telemetry.js';
import type { OpenTelemetryApi, SpanLike, TracerLike } from './open-telemetry-types.js';
import { requestSpanAttributes, usageSpanAttributes } from './request-span-attributes.js';

/** Options for {@link TelemetryObserver}. */
export type TelemetryObserverOptions = {
  /** The tracer to use. @default `trace.getTracer('ctxloom')` of `@opentelemetry/api`, when installed */
  readonly tracer?: TracerLike;
  /** The tracer name asked of the global provider. @default 'ctxloom' */
  readonly tracerName?: string;
  /** Decisions added to a span as `ctxloom.decision` events, at most. @default 64 */
  readonly maxDecisionEvents?: number;
  /** The clock for span times. @default () => new Date() */
  readonly clock?: () => Date;
};

/** Defaults of {@link TelemetryObserverOptions}. */
export const DEFAULT_TELEMETRY_OBSERVER = Object.freeze({ tracerName: 'ctxloom', maxDecisionEvents: 64 });

type Spanned = { readonly span: SpanLike; readonly request: ObservedRequest };

/**
 * A {@link RequestObserver} that makes an OpenTelemetry span of every request built (`ctxloom.build`,
 * `ctxloom.transform`, `ctxloom.prepare-step`, `ctxloom.middleware`), timed from the build's start to
 * its end, with the GenAI semantic-convention attributes and ctxloom's own (tokens per section,
 * decision, dropped and offloaded counts) and one event per decision. When the provider's usage is
 * reported, a child span `chat <model>` carries it (`gen_ai.usage.input_tokens`, `output_tokens`,
 * `cache_read.input_tokens`) over the call's latency. Spans are children of the active span (an AI
 * SDK telemetry span, a request handler's span).
 *
 * `@opentelemetry/api` is an optional peer, imported on first use; without it, or without a
 * registered tracer provider, nothing is recorded and nothing fails.
 *
 * @example
 * const observer = combineRequestObservers([recorder, new TelemetryObserver()]);
 * const prepareStep = createPrepareStep({ governor }, { tools, observer });
 */
export class TelemetryObserver implements RequestObserver {
  readonly specificationVersion = 'v1';
  readonly id = 'open-telemetry';
  readonly #options: TelemetryObserverOptions;
  readonly #recent = new RecentRequests<Spanned>();
  #api: Promise<OpenTelemetryApi | undefined> | undefined;

  constructor(options: TelemetryObserverOptions = {}) {
    this.#options = options;
  }

  async observeRequest(request: ObservedRequest): Promise<string | undefined> {
    if (request.priorUsage !== undefined) await this.observeUsage(request.priorUsage);
    const api = await this.#loadApi();
    const tracer = this.#tracer(api);
    if (tracer === undefined) return undefined;
    const end = this.#now();
    const span = tracer.startSpan(`ctxloom.${request.source}`, {
      startTime: new Date(end.getTime() - request.trace.durationMs),
      attributes: requestSpanAttributes(request),
    });
    const limit = this.#options.maxDecisionEvents ?? DEFAULT_TELEMETRY_OBSERVER.maxDecisionEvents;
    for (const decision of traceDecisions(request.trace).slice(0, limit)) {
      span.addEvent('ctxloom.decision', {
        'ctxloom.decision.type': decision.type,
        'ctxloom.decision.stage': decision.stage,
        'ctxloom.decision.reason': decision.reason,
        'ctxloom.decision.message_ids': [...decision.messageIds],
      });
    }
    span.end(end);
    const id = span.spanContext().spanId;
    this.#recent.add({
      id,
      value: { span, request },
      ...(request.runId === undefined ? {} : { runId: request.runId }),
      ...(request.stepNumber === undefined ? {} : { stepNumber: request.stepNumber }),
    });
    return id;
  }

  async observeUsage(usage: ObservedUsage): Promise<void> {
    const api = await this.#loadApi();
    const tracer = this.#tracer(api);
    if (tracer === undefined) return;
    const parent = this.#recent.match(usage)?.value;
    const end = this.#now();
    const model = usage.model ?? parent?.request.model;
    const parentContext =
      api === undefined || parent === undefined
        ? undefined
        : api.trace.setSpan(api.context.active(), parent.span);
    const span = tracer.startSpan(
      model === undefined ? 'chat' : `chat ${model}`,
      {
        startTime: new Date(end.getTime() - (usage.latencyMs ?? 0)),
        attributes: usageSpanAttributes(usage, parent?.request),
        kind: SPAN_KIND_CLIENT,
      },
      ...(parentContext === undefined ? [] : [parentContext]),
    );
    span.end(end);
  }

  #now(): Date {
    return this.#options.clock?.() ?? new Date();
  }

  #loadApi(): Promise<OpenTelemetryApi | undefined> {
    this.#api ??= loadOpenTelemetry();
    return this.#api;
  }

  #tracer(api: OpenTelemetryApi | undefined): TracerLike | undefined {
    if (this.#options.tracer !== undefined) return this.#options.tracer;
    return api?.trace.getTracer(this.#options.tracerName ?? DEFAULT_TELEMETRY_OBSERVER.tracerName);
  }
}

/** `SpanKind.CLIENT` of `@opentelemetry/api`: the model call goes out to a provider. */
const SPAN_KIND_CLIENT = 2;
