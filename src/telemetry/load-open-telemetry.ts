import type { OpenTelemetryApi } from './open-telemetry-types.js';

/** The package is named through a variable so TypeScript and bundlers never require it. */
const OPEN_TELEMETRY_API = '@opentelemetry/api';

/**
 * Imports `@opentelemetry/api` when it is installed; `undefined` when it is not (telemetry is then
 * off, which is not an error: the package is an optional peer).
 */
export async function loadOpenTelemetry(): Promise<OpenTelemetryApi | undefined> {
  let module: unknown;
  try {
    module = await import(OPEN_TELEMETRY_API);
  } catch {
    // Not installed: tracing stays off, as documented.
    return undefined;
  }
  return isOpenTelemetryApi(module) ? module : undefined;
}

function isOpenTelemetryApi(value: unknown): value is OpenTelemetryApi {
  if (typeof value !== 'object' || value === null) return false;
  const trace: unknown = Reflect.get(value, 'trace');
  const context: unknown = Reflect.get(value, 'context');
  return (
    typeof trace === 'object' &&
    trace !== null &&
    typeof Reflect.get(trace, 'getTracer') === 'function' &&
    typeof Reflect.get(trace, 'setSpan') === 'function' &&
    typeof context === 'object' &&
    context !== null &&
    typeof Reflect.get(context, 'active') === 'function'
  );
}
