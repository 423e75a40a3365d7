import path from 'node:path';
import { type TokenCounterConfig, tokenCounterConfigSchema } from '../../config/index.js';
import { ContextError, type CtxloomConfig, createTokenCounter, type TokenCounter } from '../../index.js';
import type { BuildFlags } from './build-flags.js';

/** The `--counter` values. */
export const COUNTER_TYPES = tokenCounterConfigSchema.shape.type.options;

/**
 * The token counter of a build: --counter (with --tokenizer for hf), else tokenCounter in ctxloom.yaml,
 * else the model's counter.
 * @throws ContextError `INVALID_OPTIONS` for an unknown counter, or --tokenizer without the hf counter.
 */
export async function loadBuildCounter(
  flags: BuildFlags,
  sources: {
    readonly config: CtxloomConfig;
    readonly workspace: string;
    readonly cwd: string;
    readonly model: string | undefined;
  },
): Promise<TokenCounter> {
  const type = counterType(flags.counter, sources.config);
  if (flags.tokenizer !== undefined && type !== 'hf') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `--tokenizer is the tokenizer.json of the hf counter, but the counter is ${type ?? 'chosen by model'}; add --counter hf, or drop --tokenizer.`,
    });
  }
  const configured = sources.config.tokenCounter;
  const counterConfig: TokenCounterConfig | undefined =
    type === undefined
      ? undefined
      : {
          ...(configured?.type === type ? configured : {}),
          type,
          ...(flags.tokenizer === undefined
            ? {}
            : { tokenizerPath: path.resolve(sources.cwd, flags.tokenizer) }),
        };
  return createTokenCounter({
    config: counterConfig,
    workspace: sources.workspace,
    ...(sources.model === undefined ? {} : { model: sources.model }),
  });
}

function counterType(
  flag: string | undefined,
  config: CtxloomConfig,
): TokenCounterConfig['type'] | undefined {
  const value = flag ?? config.tokenCounter?.type;
  if (value === undefined) return undefined;
  const parsed = tokenCounterConfigSchema.shape.type.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--counter ${JSON.stringify(value)} is not supported; use one of: ${COUNTER_TYPES.join(', ')}.`,
  });
}
