import path from 'node:path';
import {
  ByteTokenCounter,
  ContextError,
  type CtxloomConfig,
  HFTokenCounter,
  resolveTiktokenEncoding,
  SimpleTokenCounter,
  TiktokenTokenCounter,
  type TokenCounter,
} from '../index.js';

/**
 * The counter the inspector uses: `tokenCounter` from `ctxloom.yaml` when set (a tiktoken counter
 * without an encoding or model follows `model`), else the exact tiktoken counter when `model` is a
 * known OpenAI model, else the simple estimate.
 * @throws ContextError `INVALID_OPTIONS` for an unknown tiktoken model in the config, or
 * `TOKENIZER_UNAVAILABLE`/`NOT_FOUND` when an `hf` tokenizer file cannot be loaded.
 */
export async function resolveInspectorCounter(options: {
  readonly config: CtxloomConfig;
  readonly model: string;
  readonly workspace: string;
  readonly signal?: AbortSignal;
}): Promise<TokenCounter> {
  const counter = options.config.tokenCounter;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  switch (counter?.type) {
    case 'simple':
      return new SimpleTokenCounter();
    case 'byte':
      return new ByteTokenCounter();
    case 'hf':
      return HFTokenCounter.fromFile({
        path: path.resolve(options.workspace, counter.tokenizerPath ?? 'tokenizer.json'),
      });
    case 'tiktoken':
      return TiktokenTokenCounter.create({
        ...signal,
        encoding:
          counter.encoding === undefined
            ? resolveTiktokenEncoding(counter.model ?? options.model)
            : encodingName(counter.encoding),
      });
    case undefined:
      return knownEncoding(options.model) === undefined
        ? new SimpleTokenCounter()
        : TiktokenTokenCounter.create({ ...signal, model: options.model });
    default:
      return new SimpleTokenCounter();
  }
}

function encodingName(value: string): 'o200k_base' | 'cl100k_base' {
  if (value === 'cl100k_base' || value === 'o200k_base') return value;
  throw new ContextError({
    code: 'INVALID_CONFIG',
    message: `tokenCounter.encoding ${JSON.stringify(value)} in ctxloom.yaml is not supported; use o200k_base or cl100k_base.`,
  });
}

function knownEncoding(model: string): string | undefined {
  try {
    return resolveTiktokenEncoding(model);
  } catch {
    return undefined;
  }
}
