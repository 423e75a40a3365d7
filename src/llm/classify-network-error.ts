import { ContextError } from '../core/errors.js';
import type { ModelFailureKind, ModelFailureReason } from './chat-model-error.js';

/** What {@link classifyNetworkError} found. */
export type NetworkFailure = {
  readonly kind: ModelFailureKind;
  readonly reason: ModelFailureReason;
  /** The system error code, e.g. `ECONNREFUSED`, when there is one. */
  readonly code: string | undefined;
};

const BY_CODE: Readonly<Record<string, Omit<NetworkFailure, 'code'>>> = {
  ECONNREFUSED: { kind: 'configuration', reason: 'connection-refused' },
  ENOTFOUND: { kind: 'configuration', reason: 'host-not-found' },
  EAI_AGAIN: { kind: 'transient', reason: 'host-not-found' },
  EHOSTUNREACH: { kind: 'configuration', reason: 'host-unreachable' },
  ENETUNREACH: { kind: 'configuration', reason: 'host-unreachable' },
  EHOSTDOWN: { kind: 'configuration', reason: 'host-unreachable' },
  ERR_INVALID_URL: { kind: 'configuration', reason: 'invalid-url' },
  ECONNRESET: { kind: 'transient', reason: 'connection-reset' },
  EPIPE: { kind: 'transient', reason: 'connection-reset' },
  ECONNABORTED: { kind: 'transient', reason: 'connection-reset' },
  UND_ERR_SOCKET: { kind: 'transient', reason: 'connection-reset' },
  UND_ERR_CLOSED: { kind: 'transient', reason: 'connection-reset' },
  ETIMEDOUT: { kind: 'transient', reason: 'timeout' },
  UND_ERR_CONNECT_TIMEOUT: { kind: 'transient', reason: 'timeout' },
  UND_ERR_HEADERS_TIMEOUT: { kind: 'transient', reason: 'timeout' },
  UND_ERR_BODY_TIMEOUT: { kind: 'transient', reason: 'timeout' },
};

const TLS_CODE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/;

/**
 * Classifies an error thrown by `fetch` (Node's undici: a `TypeError` whose `cause`, or one of the
 * cause's `errors`, carries a system `code`). Nothing listening, an unknown or unreachable host, a bad
 * URL, a port fetch refuses to connect to (undici's "bad port": 6000, 10080, …) or a TLS certificate
 * problem is `configuration`; a reset, a closed socket, a network timeout or
 * anything unrecognised is `transient`.
 */
export function classifyNetworkError(error: unknown): NetworkFailure {
  const code = findCode(error, 0);
  if (code !== undefined) {
    const known = BY_CODE[code];
    if (known !== undefined) return { ...known, code };
    if (TLS_CODE.test(code)) return { kind: 'configuration', reason: 'tls', code };
  }
  // fetch (undici) refuses ports such as 6000 (X11) and 10080 before connecting ("bad port"): the URL
  // never works, whenever it is retried.
  if (isBadPort(error, 0)) return { kind: 'configuration', reason: 'blocked-port', code };
  if (error instanceof TypeError && /invalid url|failed to parse url/i.test(error.message)) {
    return { kind: 'configuration', reason: 'invalid-url', code };
  }
  if (error instanceof Error && /terminated|other side closed|socket hang up/i.test(error.message)) {
    return { kind: 'transient', reason: 'connection-reset', code };
  }
  return { kind: 'transient', reason: 'other', code };
}

function findCode(error: unknown, depth: number): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  // A ctxloom error's code is its own vocabulary, not a system error code: look at its cause.
  const code: unknown = ContextError.isInstance(error) ? undefined : Reflect.get(error, 'code');
  if (typeof code === 'string' && code !== '') return code;
  const errors: unknown = Reflect.get(error, 'errors');
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = findCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return findCode(Reflect.get(error, 'cause'), depth + 1);
}

/** True when the error or one of its causes is undici's "bad port" refusal. */
function isBadPort(error: unknown, depth: number): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  return /^bad port$/i.test(error.message) || isBadPort(error.cause, depth + 1);
}
