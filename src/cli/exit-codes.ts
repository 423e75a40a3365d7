import { ChatModelError, ContextError, type ContextErrorCode } from '../index.js';
import type { ModelFailureKind } from '../llm/index.js';

/**
 * The CLI's exit codes, in one table: 0 ok, 1 unexpected, 2 invalid options or input, 3 budget,
 * 4 store, 5 adapter, and for the model calls of `memory consolidate` / `memory write`: 6 the model
 * endpoint is misconfigured or unreachable (nothing changed), 7 the model's reply was not usable
 * (nothing changed), 8 the model failed transiently (consolidate raw-archived the turns instead;
 * write wrote nothing). See docs/cli-exit-codes.md.
 */
export const EXIT_CODES = {
  ok: 0,
  unexpected: 1,
  invalid: 2,
  budget: 3,
  store: 4,
  adapter: 5,
  modelConfiguration: 6,
  modelReply: 7,
  modelTransient: 8,
} as const;

const byCode: Partial<Record<ContextErrorCode, number>> = {
  INVALID_OPTIONS: EXIT_CODES.invalid,
  INVALID_INPUT: EXIT_CODES.invalid,
  INVALID_CONFIG: EXIT_CODES.invalid,
  UNSAFE_PATH: EXIT_CODES.invalid,
  NOT_FOUND: EXIT_CODES.invalid,
  SKILL_INVALID: EXIT_CODES.invalid,
  TOOL_CALL_INTEGRITY: EXIT_CODES.invalid,
  TOKENIZER_UNAVAILABLE: EXIT_CODES.invalid,
  DEPENDENCY_MISSING: EXIT_CODES.invalid,
  BUDGET_UNSATISFIABLE: EXIT_CODES.budget,
  STORE_UNAVAILABLE: EXIT_CODES.store,
  STORE_CORRUPT: EXIT_CODES.store,
  STORE_CONFLICT: EXIT_CODES.store,
  ADAPTER_UNSUPPORTED: EXIT_CODES.adapter,
  MODEL_REQUEST_FAILED: EXIT_CODES.modelTransient,
  SUMMARISER_FAILED: EXIT_CODES.modelReply,
};

const byKind: Readonly<Record<ModelFailureKind, number>> = {
  configuration: EXIT_CODES.modelConfiguration,
  'unusable-reply': EXIT_CODES.modelReply,
  transient: EXIT_CODES.modelTransient,
};

/** The exit code for anything thrown by a command; model failures by their kind. */
export function exitCodeFor(error: unknown): number {
  if (ChatModelError.isInstance(error)) return byKind[error.kind];
  if (!ContextError.isInstance(error)) return EXIT_CODES.unexpected;
  return byCode[error.code] ?? EXIT_CODES.unexpected;
}
