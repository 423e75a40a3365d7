import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { ByteTokenCounter } from '../tokens/byte-token-counter.js';
import { HFTokenCounter } from '../tokens/hf-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { resolveTiktokenEncoding } from '../tokens/tiktoken-encoding.js';
import { TiktokenTokenCounter } from '../tokens/tiktoken-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { tokenCounterForModel } from '../tokens/token-counter-for-model.js';
import type { TokenCounterConfig } from './config-schema.js';

/** Where {@link createTokenCounter} resolves relative paths and which model it falls back to. */
export type CreateTokenCounterOptions = {
  /** The `tokenCounter` section of `ctxloom.yaml`, or flags shaped like it. @default undefined (by model) */
  readonly config?: TokenCounterConfig | undefined;
  /** The folder a relative `tokenizerPath` is resolved from. */
  readonly workspace: string;
  /** The model the context is for: picks the tiktoken encoding when the config names none. @default undefined */
  readonly model?: string;
  readonly signal?: AbortSignal;
};

/**
 * Makes the token counter a configuration asks for: `simple`, `byte`, `tiktoken` (encoding, else
 * the encoding of `config.model` or `model`, else o200k_base) or `hf` (a local tokenizer.json).
 * Without a config: exact tiktoken counting when `model` is a known OpenAI model, else
 * `tokenCounterForModel(model)`: the calibrated estimate (`EstimatingTokenCounter`), × 1.25 for a
 * Claude model (`CLAUDE_TOKEN_FACTOR`).
 * @throws ContextError `INVALID_OPTIONS` when `hf` has no tokenizerPath or a tiktoken model is unknown;
 * `TOKENIZER_UNAVAILABLE` when the tokenizer file cannot be loaded.
 */
export async function createTokenCounter(options: CreateTokenCounterOptions): Promise<TokenCounter> {
  const { config, model } = options;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  switch (config?.type) {
    case undefined:
      return model !== undefined && isKnownModel(model)
        ? TiktokenTokenCounter.create({ ...signal, model })
        : tokenCounterForModel(model);
    case 'simple':
      return new SimpleTokenCounter();
    case 'byte':
      return new ByteTokenCounter();
    case 'tiktoken': {
      const byModel = config.model ?? model;
      const encoding =
        config.encoding ?? (byModel === undefined ? 'o200k_base' : resolveTiktokenEncoding(byModel));
      return TiktokenTokenCounter.create({ ...signal, encoding });
    }
    case 'hf':
      if (config.tokenizerPath === undefined) {
        throw new ContextError({
          code: 'INVALID_OPTIONS',
          message:
            'The hf token counter needs a local tokenizer.json: set tokenCounter.tokenizerPath in ctxloom.yaml or pass --tokenizer FILE.',
        });
      }
      return HFTokenCounter.fromFile({ path: path.resolve(options.workspace, config.tokenizerPath) });
  }
}

function isKnownModel(model: string): boolean {
  try {
    resolveTiktokenEncoding(model);
    return true;
  } catch {
    return false;
  }
}
