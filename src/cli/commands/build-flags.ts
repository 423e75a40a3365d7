import { ContextError } from '../../index.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { parseCliArgs } from '../parse-cli-args.js';
import { MODEL_FLAGS, STORE_FLAGS } from './session-store-flags.js';

const BUILD_FLAGS = {
  ...STORE_FLAGS,
  history: { type: 'string' },
  session: { type: 'string' },
  preset: { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-messages': { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  'allow-over-budget': { type: 'boolean' },
  'write-offloads': { type: 'boolean' },
  'strict-format': { type: 'boolean' },
  counter: { type: 'string' },
  tokenizer: { type: 'string' },
  format: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  'no-summary': { type: 'boolean' },
  compact: { type: 'boolean' },
  ...MODEL_FLAGS,
} as const;

/** The parsed flags of `ctxloom build`, and its MESSAGE. */
export type BuildFlags = {
  readonly [name in keyof typeof BUILD_FLAGS]?: (typeof BUILD_FLAGS)[name]['type'] extends 'boolean'
    ? boolean
    : string;
} & { readonly message: string };

/** @throws ContextError `INVALID_OPTIONS` for a missing MESSAGE (flag mistakes: see `parseCliArgs`). */
export function parseBuildFlags(args: readonly string[]): BuildFlags {
  const parsed = parseCliArgs('build', args, BUILD_FLAGS);
  const message = parsed.positionals.join(' ');
  if (message.trim() === '') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'ctxloom build needs a MESSAGE, e.g. ctxloom build --workspace . "What should I work on next?"',
    });
  }
  // parseCliArgs checked every value against BUILD_FLAGS: strings for string flags, booleans for switches.
  return { ...(parsed.values as Omit<BuildFlags, 'message'>), message };
}

/** @throws ContextError `INVALID_OPTIONS` unless the flag is a whole number ≥ 0 in its range. */
export function wholeNumber(flag: string, value: string | undefined): number | undefined {
  return parseIntegerFlag(flag, { text: value, min: 0 });
}

/** @throws ContextError `INVALID_OPTIONS` unless the flag is a positive integer in its range. */
export function positiveInteger(flag: string, value: string | undefined): number | undefined {
  return parseIntegerFlag(flag, { text: value, min: 1 });
}
