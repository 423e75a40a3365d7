/**
 * The few shapes of `@opentelemetry/api` ctxloom uses, written out so this package typechecks and
 * loads without it. A real `Tracer` from the API fits {@link TracerLike}.
 */

/** An attribute value OpenTelemetry accepts. */
export type SpanAttributeValue = string | number | boolean | string[] | number[];

/** Span attributes. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue>>;

/** The part of a span ctxloom uses. */
export type SpanLike = {
  setAttributes(attributes: SpanAttributes): unknown;
  addEvent(name: string, attributes?: SpanAttributes, time?: Date): unknown;
  setStatus(status: { readonly code: number; readonly message?: string }): unknown;
  end(endTime?: Date): void;
  spanContext(): { readonly spanId: string; readonly traceId: string };
};

/** The part of a tracer ctxloom uses (`trace.getTracer(name)` of `@opentelemetry/api`). */
export type TracerLike = {
  startSpan(
    name: string,
    options?: { readonly startTime?: Date; readonly attributes?: SpanAttributes; readonly kind?: number },
    context?: unknown,
  ): SpanLike;
};

/** The part of the `@opentelemetry/api` module ctxloom uses. */
export type OpenTelemetryApi = {
  readonly trace: {
    getTracer(name: string, version?: string): TracerLike;
    setSpan(context: unknown, span: SpanLike): unknown;
  };
  readonly context: { active(): unknown };
};
