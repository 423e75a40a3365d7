import { checkOptions, type OptionKeys } from '../core/check-options.js';

/** Options for {@link CompactionBreaker}. */
export type CompactionBreakerOptions = {
  /** Failures in a row that open the breaker. @default 3 */
  readonly maxFailures?: number;
  /** How long an open breaker refuses to try, in milliseconds. @default 300000 (5 minutes) */
  readonly cooldownMs?: number;
};

const COMPACTION_BREAKER_OPTION_KEYS = {
  maxFailures: true,
  cooldownMs: true,
} as const satisfies OptionKeys<CompactionBreakerOptions>;

/** Defaults of {@link CompactionBreakerOptions}. */
export const DEFAULT_COMPACTION_BREAKER = Object.freeze({ maxFailures: 3, cooldownMs: 300_000 });

/**
 * Stops asking a failing summariser: after `maxFailures` failed compactions in a row it stays open for
 * `cooldownMs`, and compaction is skipped with the reason `breaker-open`; then one try is let through
 * (half-open), and a success closes it. Keep one per session (or per summariser) across turns.
 */
export class CompactionBreaker {
  readonly #maxFailures: number;
  readonly #cooldownMs: number;
  #failures = 0;
  #openedAt: number | undefined;

  constructor(options: CompactionBreakerOptions = {}) {
    checkOptions(options, { where: 'new CompactionBreaker options', known: COMPACTION_BREAKER_OPTION_KEYS });
    this.#maxFailures = options.maxFailures ?? DEFAULT_COMPACTION_BREAKER.maxFailures;
    this.#cooldownMs = options.cooldownMs ?? DEFAULT_COMPACTION_BREAKER.cooldownMs;
  }

  /** Failed compactions in a row. */
  get failures(): number {
    return this.#failures;
  }

  /** True while open: `now` (ms) is within the cooldown after the failure that opened it. */
  isOpen(now: number): boolean {
    return this.#openedAt !== undefined && now - this.#openedAt < this.#cooldownMs;
  }

  recordFailure(now: number): void {
    this.#failures += 1;
    if (this.#failures >= this.#maxFailures) this.#openedAt = now;
  }

  recordSuccess(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
  }
}
