import { ContextError } from '../core/errors.js';

/** Inputs of {@link retryDelayMs}. */
export type RetryDelayInput = {
  /** 0 for the first retry. */
  readonly attempt: number;
  /** The `Retry-After` header: seconds or an HTTP date. */
  readonly retryAfter?: string | undefined;
  readonly baseMs: number;
  readonly maxMs: number;
  /** The clock for HTTP-date `Retry-After` values. @default the system clock */
  readonly now?: () => number;
};

/**
 * How long to wait before a retry: the server's `Retry-After` (seconds or HTTP date) when given,
 * else `baseMs × 2^attempt`; never more than `maxMs`, never negative.
 */
export function retryDelayMs(input: RetryDelayInput): number {
  const fromHeader = parseRetryAfter(
    input.retryAfter,
    input.now ?? (() => performance.timeOrigin + performance.now()),
  );
  const delay = fromHeader ?? input.baseMs * 2 ** input.attempt;
  return Math.max(0, Math.min(delay, input.maxMs));
}

function parseRetryAfter(value: string | undefined, now: () => number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date - now();
}

/** Waits `ms`, or throws `ABORTED` as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(
        new ContextError({
          code: 'ABORTED',
          message: 'Aborted while waiting to retry.',
          cause: signal.reason,
        }),
      );
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(
        new ContextError({
          code: 'ABORTED',
          message: 'Aborted while waiting to retry.',
          cause: signal?.reason,
        }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
