/**
 * The closed list of error codes, with each code's category. `user` errors are fixed by the caller
 * (options, input, files), `system` errors by the environment, `third-party` errors come from a model,
 * database or package ctxloom calls.
 */
export const CONTEXT_ERROR_CODES = {
  INVALID_OPTIONS: 'user',
  INVALID_INPUT: 'user',
  INVALID_CONFIG: 'user',
  UNSAFE_PATH: 'user',
  NOT_FOUND: 'user',
  BUDGET_UNSATISFIABLE: 'user',
  TOOL_CALL_INTEGRITY: 'user',
  SKILL_INVALID: 'user',
  ADAPTER_UNSUPPORTED: 'user',
  STORE_UNAVAILABLE: 'system',
  STORE_CORRUPT: 'system',
  STORE_CONFLICT: 'system',
  TOKENIZER_UNAVAILABLE: 'system',
  DEPENDENCY_MISSING: 'system',
  SUMMARISER_FAILED: 'third-party',
  MODEL_REQUEST_FAILED: 'third-party',
  ABORTED: 'user',
  UNEXPECTED: 'system',
} as const satisfies Record<string, ErrorCategory>;

/** Who has to act to fix an error. */
export type ErrorCategory = 'user' | 'system' | 'third-party';

/** One of the closed list of error codes. */
export type ContextErrorCode = keyof typeof CONTEXT_ERROR_CODES;

const marker = Symbol.for('ctxloom.error');

/** Options for {@link ContextError}. */
export type ContextErrorOptions = {
  /** What went wrong, with the numbers and the fix. */
  readonly message: string;
  /** The error code. */
  readonly code: ContextErrorCode;
  /** The error that caused this one, if any. */
  readonly cause?: unknown;
  /** Structured details (JSON-serialisable) for the CLI and inspector. */
  readonly details?: Readonly<Record<string, unknown>>;
};

/**
 * The one error class of ctxloom. Check with {@link ContextError.isInstance}, which survives
 * duplicated installs (it reads a `Symbol.for` marker, not the prototype chain).
 */
export class ContextError extends Error {
  readonly [marker] = true;
  readonly code: ContextErrorCode;
  readonly category: ErrorCategory;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(options: ContextErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ContextError';
    this.code = options.code;
    this.category = CONTEXT_ERROR_CODES[options.code];
    this.details = options.details ?? {};
  }

  /** True when `value` is a ctxloom error (from any copy of the package). */
  static isInstance(value: unknown): value is ContextError {
    return typeof value === 'object' && value !== null && marker in value;
  }

  /** The error as plain data. */
  toJSON(): Readonly<Record<string, unknown>> {
    return {
      name: this.name,
      code: this.code,
      category: this.category,
      message: this.message,
      details: this.details,
      ...(this.cause === undefined ? {} : { cause: describeCause(this.cause) }),
    };
  }
}

/** Thrown when the pinned part of the context alone does not fit the budget. */
export class BudgetUnsatisfiableError extends ContextError {
  readonly budget: number;
  readonly required: number;
  readonly pinnedTokens: number;

  constructor(options: {
    readonly budget: number;
    readonly required: number;
    readonly pinnedTokens: number;
    readonly message: string;
  }) {
    super({
      code: 'BUDGET_UNSATISFIABLE',
      message: options.message,
      details: { budget: options.budget, required: options.required, pinnedTokens: options.pinnedTokens },
    });
    this.name = 'BudgetUnsatisfiableError';
    this.budget = options.budget;
    this.required = options.required;
    this.pinnedTokens = options.pinnedTokens;
  }
}

/** Thrown by a session store; names the backend and the operation that failed. */
export class SessionStoreError extends ContextError {
  readonly backend: string;
  readonly operation: string;

  constructor(options: ContextErrorOptions & { readonly backend: string; readonly operation: string }) {
    super({
      ...options,
      details: { ...options.details, backend: options.backend, operation: options.operation },
    });
    this.name = 'SessionStoreError';
    this.backend = options.backend;
    this.operation = options.operation;
  }
}

/** Thrown by an adapter that cannot express a feature in the target format. */
export class AdapterError extends ContextError {
  readonly format: string;
  readonly feature: string;

  constructor(options: { readonly format: string; readonly feature: string; readonly message: string }) {
    super({ code: 'ADAPTER_UNSUPPORTED', message: options.message, details: { ...options } });
    this.name = 'AdapterError';
    this.format = options.format;
    this.feature = options.feature;
  }
}

/**
 * Normalises anything thrown (by a plugin, a backend, a package) into a {@link ContextError}.
 * A ContextError passes through unchanged; an `AbortError` becomes `ABORTED`.
 */
export function toContextError(value: unknown, code: ContextErrorCode = 'UNEXPECTED'): ContextError {
  if (ContextError.isInstance(value)) return value;
  if (value instanceof Error && value.name === 'AbortError') {
    return new ContextError({ code: 'ABORTED', message: 'The operation was aborted.', cause: value });
  }
  const text = value instanceof Error ? value.message : String(value);
  return new ContextError({ code, message: text, cause: value });
}

/** Throws `ABORTED` when the signal has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    throw new ContextError({ code: 'ABORTED', message: 'The operation was aborted.', cause: signal.reason });
  }
}

function describeCause(cause: unknown): unknown {
  if (ContextError.isInstance(cause)) return cause.toJSON();
  if (cause instanceof Error) return { name: cause.name, message: cause.message };
  return String(cause);
}
