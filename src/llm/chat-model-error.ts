import { ContextError } from '../core/errors.js';

/**
 * How a model call failed, which decides what the caller may do:
 * - `configuration`: the endpoint refused or cannot be reached as configured (401, 403, 404, other
 *   4xx, connection refused, unknown host, not an OpenAI-compatible API). Retrying will not help;
 *   fail fast and change nothing.
 * - `transient`: the endpoint may answer later (5xx, 429, 408, a timeout, a reset connection, a
 *   truncated body), reported after the retries ran out. Consolidation falls back to nanobot's raw
 *   archive.
 * - `unusable-reply`: the model answered, but the reply cannot be used (cut at the output limit,
 *   filtered, no finish reason, only reasoning, empty, tool calls, or a MEMORY.md that loses most of
 *   the old one). Nothing is written.
 */
export type ModelFailureKind = 'configuration' | 'transient' | 'unusable-reply';

/** What exactly failed (a closed list, so callers and tests can branch on it). */
export type ModelFailureReason =
  | 'http-status'
  | 'connection-refused'
  | 'host-not-found'
  | 'host-unreachable'
  | 'tls'
  | 'invalid-url'
  | 'blocked-port'
  | 'connection-reset'
  | 'timeout'
  | 'truncated-body'
  | 'not-json'
  | 'no-choices'
  | 'length'
  | 'content-filter'
  | 'no-finish-reason'
  | 'unexpected-finish-reason'
  | 'tool-calls'
  | 'empty'
  | 'reasoning-only'
  | 'loses-memory'
  | 'other';

/** Options for {@link ChatModelError}. */
export type ChatModelErrorOptions = {
  /** What happened, with the numbers and the fix. */
  readonly message: string;
  readonly kind: ModelFailureKind;
  readonly reason: ModelFailureReason;
  /** The HTTP status, when the endpoint answered with one. */
  readonly status?: number;
  /** Requests sent, retries included. @default 1 */
  readonly attempts?: number;
  readonly cause?: unknown;
};

const marker = Symbol.for('ctxloom.chat-model-error');

/**
 * The error of the {@link ChatModel} contract and of the reply checks built on it. Its `kind` tells
 * the caller what to do (see {@link ModelFailureKind}); `code` is `MODEL_REQUEST_FAILED` for a request
 * that produced no reply and `SUMMARISER_FAILED` for an `unusable-reply`.
 */
export class ChatModelError extends ContextError {
  readonly [marker] = true;
  readonly kind: ModelFailureKind;
  readonly reason: ModelFailureReason;
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(options: ChatModelErrorOptions) {
    const attempts = options.attempts ?? 1;
    super({
      code: options.kind === 'unusable-reply' ? 'SUMMARISER_FAILED' : 'MODEL_REQUEST_FAILED',
      message: options.message,
      details: {
        kind: options.kind,
        reason: options.reason,
        attempts,
        ...(options.status === undefined ? {} : { status: options.status }),
      },
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'ChatModelError';
    this.kind = options.kind;
    this.reason = options.reason;
    this.status = options.status;
    this.attempts = attempts;
  }

  /** True when `value` is a ChatModelError (from any copy of the package). */
  static override isInstance(value: unknown): value is ChatModelError {
    return typeof value === 'object' && value !== null && marker in value;
  }

  /** The same failure with `text` appended to the message (what the caller did or did not do). */
  withNote(text: string): ChatModelError {
    return new ChatModelError({
      message: `${this.message} ${text}`,
      kind: this.kind,
      reason: this.reason,
      attempts: this.attempts,
      ...(this.status === undefined ? {} : { status: this.status }),
      cause: this,
    });
  }
}
