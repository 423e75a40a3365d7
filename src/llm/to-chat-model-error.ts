import { ContextError } from '../core/errors.js';
import { ChatModelError, type ModelFailureKind } from './chat-model-error.js';
import { classifyNetworkError } from './classify-network-error.js';

/**
 * The failure kind of an HTTP status: 408, 409, 425, 429 and 5xx are `transient` (the endpoint may
 * answer later); every other status ≥ 400 is `configuration` (the request as configured is refused:
 * key, permissions, URL, model name, request options).
 */
export function failureKindForStatus(status: number): ModelFailureKind {
  return status >= 500 || [408, 409, 425, 429].includes(status) ? 'transient' : 'configuration';
}

/**
 * Normalises anything a {@link ChatModel} threw into a {@link ChatModelError}, or `undefined` for
 * `ABORTED` (which callers rethrow). A ChatModelError passes through; an error carrying an HTTP
 * status (`details.status`, `status` or `statusCode`, also on its causes, as the AI SDK's
 * `APICallError` has) is classified by {@link failureKindForStatus}; one caused by a known network
 * error (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, …) or by a port fetch refuses to connect to
 * (undici's "bad port", `configuration`: retrying never helps) by `classifyNetworkError`; other ctxloom errors
 * (`DEPENDENCY_MISSING`, `INVALID_OPTIONS`, …) are `configuration`; anything else is `transient`
 * (nanobot raw-archives when the call raises).
 */
export function toChatModelError(error: unknown): ChatModelError | undefined {
  if (ChatModelError.isInstance(error)) return error;
  if (ContextError.isInstance(error) && error.code === 'ABORTED') return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const status = statusOf(error);
  if (status !== undefined) {
    return new ChatModelError({
      message,
      kind: failureKindForStatus(status),
      reason: 'http-status',
      status,
      cause: error,
    });
  }
  const network = classifyNetworkError(error);
  // A failure known by its system code, or one that never works however often it is retried (a port
  // fetch refuses: the AI SDK's "Cannot connect to API: bad port" carries no code).
  if (network.reason !== 'other' && (network.code !== undefined || network.kind === 'configuration')) {
    return new ChatModelError({ message, kind: network.kind, reason: network.reason, cause: error });
  }
  const isConfiguration = ContextError.isInstance(error) && error.code !== 'MODEL_REQUEST_FAILED';
  return new ChatModelError({
    message,
    kind: isConfiguration ? 'configuration' : 'transient',
    reason: 'other',
    cause: error,
  });
}

function statusOf(error: unknown, depth = 0): number | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const details: unknown = Reflect.get(error, 'details');
  for (const value of [
    typeof details === 'object' && details !== null ? Reflect.get(details, 'status') : undefined,
    Reflect.get(error, 'status'),
    Reflect.get(error, 'statusCode'),
  ]) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 400) return value;
  }
  return statusOf(Reflect.get(error, 'cause'), depth + 1);
}
