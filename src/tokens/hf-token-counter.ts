import { ContextError, throwIfAborted } from '../core/errors.js';
import { TextTokenCounter } from './text-token-counter.js';
import type { MessageCostOptions } from './token-counter.js';

/** The part of `@huggingface/tokenizers`' `Tokenizer` that ctxloom uses. */
export interface HFTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): { readonly ids: readonly number[] };
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

/** Loads the `@huggingface/tokenizers` module; injectable so the missing-package path is testable. */
export type HFRuntimeImporter = () => Promise<{
  readonly Tokenizer: new (json: object, config: object) => HFTokenizer;
}>;

/** Options shared by the {@link HFTokenCounter} factories. */
export type HFTokenCounterLoadOptions = MessageCostOptions & {
  /** A name for the counter id (`hf:<name>`). @default the tokenizer folder's name (`fromFile`), else 'tokenizer' */
  readonly name?: string;
  /** Cancels loading. */
  readonly signal?: AbortSignal;
  /** @internal Loads the tokenizer runtime. @default () => import('@huggingface/tokenizers') */
  readonly importRuntime?: HFRuntimeImporter;
};

/** Options for {@link HFTokenCounter.fromFile}. */
export type HFTokenCounterFromFileOptions = HFTokenCounterLoadOptions & {
  /** Path of a local `tokenizer.json`. Nothing is ever downloaded. */
  readonly path: string;
  /** Path of `tokenizer_config.json`. @default the one next to `path`, when it exists */
  readonly configPath?: string;
};

/** Options for {@link HFTokenCounter.fromJson}. */
export type HFTokenCounterFromJsonOptions = HFTokenCounterLoadOptions & {
  /** The parsed `tokenizer.json`. */
  readonly tokenizerJson: object;
  /** The parsed `tokenizer_config.json`. @default {} */
  readonly tokenizerConfig?: object;
};

/** Options for the {@link HFTokenCounter} constructor (a tokenizer already built). */
export type HFTokenCounterOptions = MessageCostOptions & {
  readonly tokenizer: HFTokenizer;
  /** A name for the counter id (`hf:<name>`). @default 'tokenizer' */
  readonly name?: string;
};

/**
 * Exact token counts for open models from a LOCAL Hugging Face `tokenizer.json` (Qwen, Llama,
 * Mistral, DeepSeek, …) with `@huggingface/tokenizers`, an optional dependency loaded with `import()`
 * on first use. Text is encoded without the model's added special tokens (BOS/EOS); the
 * per-message overhead stands for the chat template's framing.
 * @example const counter = await HFTokenCounter.fromFile({ path: 'models/qwen3/tokenizer.json' });
 */
export class HFTokenCounter extends TextTokenCounter {
  readonly id: string;
  readonly kind = 'exact' as const;
  readonly #tokenizer: HFTokenizer;

  constructor(options: HFTokenCounterOptions) {
    super(options);
    this.#tokenizer = options.tokenizer;
    this.id = `hf:${options.name ?? 'tokenizer'}`;
  }

  /**
   * Reads `tokenizer.json` (and `tokenizer_config.json`) from disk and builds a counter.
   * @throws ContextError `TOKENIZER_UNAVAILABLE` when the file is missing or not valid JSON,
   * `DEPENDENCY_MISSING` when `@huggingface/tokenizers` is not installed, `ABORTED`.
   */
  static async fromFile(options: HFTokenCounterFromFileOptions): Promise<HFTokenCounter> {
    const { readFile } = await import('node:fs/promises');
    const { basename, dirname, join } = await import('node:path');
    throwIfAborted(options.signal);
    const tokenizerJson = await readJsonFile(options.path, { readFile, isOptional: false });
    const configPath = options.configPath ?? join(dirname(options.path), 'tokenizer_config.json');
    const tokenizerConfig = await readJsonFile(configPath, {
      readFile,
      isOptional: options.configPath === undefined,
    });
    const { path: _path, configPath: _configPath, ...rest } = options;
    return HFTokenCounter.fromJson({
      ...rest,
      name: options.name ?? basename(dirname(options.path)),
      tokenizerJson: tokenizerJson ?? {},
      tokenizerConfig: tokenizerConfig ?? {},
    });
  }

  /**
   * Builds a counter from an already parsed `tokenizer.json` (and config).
   * @throws ContextError `DEPENDENCY_MISSING` when `@huggingface/tokenizers` is not installed,
   * `TOKENIZER_UNAVAILABLE` when the JSON is not a tokenizer it can build, `ABORTED`.
   */
  static async fromJson(options: HFTokenCounterFromJsonOptions): Promise<HFTokenCounter> {
    const runtime = await loadRuntime(options.importRuntime ?? (() => import('@huggingface/tokenizers')));
    throwIfAborted(options.signal);
    let tokenizer: HFTokenizer;
    try {
      tokenizer = new runtime.Tokenizer(options.tokenizerJson, options.tokenizerConfig ?? {});
    } catch (error) {
      throw new ContextError({
        code: 'TOKENIZER_UNAVAILABLE',
        message: `The tokenizer JSON could not be loaded by @huggingface/tokenizers (${String(error)}); pass the model's own tokenizer.json.`,
        cause: error,
      });
    }
    const {
      tokenizerJson: _json,
      tokenizerConfig: _config,
      importRuntime: _import,
      signal: _signal,
      ...rest
    } = options;
    return new HFTokenCounter({ ...rest, tokenizer });
  }

  countText(text: string): number {
    return text === '' ? 0 : this.#tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }

  /** The token ids of a text, without added special tokens. */
  encode(text: string): number[] {
    return [...this.#tokenizer.encode(text, { add_special_tokens: false }).ids];
  }

  /** The text of token ids. */
  decode(tokens: readonly number[]): string {
    return this.#tokenizer.decode([...tokens]);
  }
}

async function loadRuntime(importRuntime: HFRuntimeImporter): ReturnType<HFRuntimeImporter> {
  try {
    return await importRuntime();
  } catch (error) {
    throw new ContextError({
      code: 'DEPENDENCY_MISSING',
      message:
        "HFTokenCounter needs the optional package '@huggingface/tokenizers'; install it: npm install @huggingface/tokenizers",
      cause: error,
    });
  }
}

async function readJsonFile(
  path: string,
  io: {
    readonly readFile: (path: string, encoding: 'utf8') => Promise<string>;
    readonly isOptional: boolean;
  },
): Promise<object | undefined> {
  let text: string;
  try {
    text = await io.readFile(path, 'utf8');
  } catch (error) {
    if (io.isOptional && isNotFound(error)) return undefined;
    throw new ContextError({
      code: 'TOKENIZER_UNAVAILABLE',
      message:
        `Tokenizer file not readable: ${path} (${isNotFound(error) ? 'no such file' : String(error)}). ctxloom never ` +
        "downloads tokenizers at run time: save the model's tokenizer.json (from its Hugging Face repository) " +
        'locally and pass its path, or use another counter (--counter simple|tiktoken).',
      cause: error,
      details: { path },
    });
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) return parsed;
    throw new Error('not a JSON object');
  } catch (error) {
    throw new ContextError({
      code: 'TOKENIZER_UNAVAILABLE',
      message: `Tokenizer file ${path} is not a valid JSON object (${String(error)}); replace it with the model's tokenizer.json.`,
      cause: error,
      details: { path },
    });
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}
