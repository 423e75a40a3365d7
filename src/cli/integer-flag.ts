import { ContextError } from '../index.js';

/** The largest token count a flag takes: far above any model's window, far below float trouble. */
export const MAX_TOKENS_FLAG = 1_000_000_000;

/** The longest delay `setTimeout` honours (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** The largest value of each integer flag (flags not listed: `Number.MAX_SAFE_INTEGER`). */
const FLAG_MAX: Readonly<Record<string, number>> = {
  '--context-window': MAX_TOKENS_FLAG,
  '--max-output': MAX_TOKENS_FLAG,
  '--max-tokens': MAX_TOKENS_FLAG,
  '--max-messages': MAX_TOKENS_FLAG,
  '--timeout-ms': MAX_TIMER_MS,
  '--retry-delay-ms': MAX_TIMER_MS,
  '--max-retries': 100,
  '--min-retained': 100,
};

/**
 * Parses an integer flag: decimal digits (`_` allowed as a separator, `128_000`), at least `min`
 * (0 or 1) and at most the flag's maximum, so `--context-window 99999999999999999999` is refused
 * instead of becoming 1e20.
 * @throws ContextError `INVALID_OPTIONS` naming the flag, the value and the range.
 */
export function parseIntegerFlag(
  flag: string,
  options: { readonly text: string | undefined; readonly min: 0 | 1 },
): number | undefined {
  const { text, min } = options;
  if (text === undefined) return undefined;
  const max = FLAG_MAX[flag] ?? Number.MAX_SAFE_INTEGER;
  const digits = text.trim().replaceAll('_', '');
  const value = /^\d+$/.test(digits) ? Number(digits) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} must be a whole number from ${min} to ${max.toLocaleString('en-US')}, got ${JSON.stringify(text)}.`,
  });
}
