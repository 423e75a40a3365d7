/**
 * @module ctxloom/telemetry
 * OpenTelemetry for ctxloom: a `RequestObserver` that turns every build and governed step into a span
 * with the GenAI semantic-convention attributes, for Langfuse, Phoenix, Jaeger or any OTLP backend.
 * `@opentelemetry/api` is an optional peer, imported on first use.
 */
export type {
  OpenTelemetryApi,
  SpanAttributes,
  SpanAttributeValue,
  SpanLike,
  TracerLike,
} from './open-telemetry-types.js';
export { requestSpanAttributes, usageSpanAttributes } from './request-span-attributes.js';
export {
  DEFAULT_TELEMETRY_OBSERVER,
  TelemetryObserver,
  type TelemetryObserverOptions,
} from './telemetry-observer.js';
