import { toOpenAIChatMessages } from '../adapters/to-openai-chat-messages.js';
import {
  OPENAI_PROMPT_CACHE_PARAMS_OPTION_KEYS,
  type OpenAIPromptCacheParamsOptions,
  openAIPromptCacheParams,
} from '../cache/openai-prompt-cache-params.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ChatResult } from './chat-model.js';
import { ChatModelError } from './chat-model-error.js';
import { classifyNetworkError } from './classify-network-error.js';
import { parseOpenAIResponse, type ResponseFailure } from './parse-openai-response.js';
import { retryDelayMs, sleep } from './retry-delay.js';
import { failureKindForStatus } from './to-chat-model-error.js';
import { toOpenAITools } from './to-openai-request.js';

/** Options for {@link OpenAICompatibleChatModel}. */
export type OpenAICompatibleChatModelOptions = {
  /** The API base URL, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama). */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer …` when set. @default none (local servers) */
  readonly apiKey?: string;
  /** The model name. */
  readonly model: string;
  /** Per-attempt timeout. @default 60000 */
  readonly timeoutMs?: number;
  /** Retries after a transient failure (429, 5xx, a reset, a timeout, a truncated body). @default 2 */
  readonly maxRetries?: number;
  /** First backoff delay; doubles per retry unless the server sends `Retry-After`. @default 500 */
  readonly retryBaseDelayMs?: number;
  /** Cap on any single wait, `Retry-After` included. @default 30000 */
  readonly maxRetryDelayMs?: number;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * OpenAI prompt caching: sends `prompt_cache_key` from the session key (and `prompt_cache_retention`
   * when `retention: '24h'`). Servers that do not know the fields may reject them. @default not sent
   */
  readonly promptCache?: OpenAIPromptCacheParamsOptions;
};

/** The keys of {@link OpenAICompatibleChatModelOptions}, for `checkOptions`. @internal */
export const OPENAI_COMPATIBLE_CHAT_MODEL_OPTION_KEYS = {
  baseURL: true,
  apiKey: true,
  model: true,
  timeoutMs: true,
  maxRetries: true,
  retryBaseDelayMs: true,
  maxRetryDelayMs: true,
  headers: true,
  fetch: true,
  promptCache: true,
} as const satisfies OptionKeys<OpenAICompatibleChatModelOptions>;

/** Defaults of {@link OpenAICompatibleChatModelOptions}. */
export const DEFAULT_OPENAI_COMPATIBLE_CHAT_MODEL = Object.freeze({
  timeoutMs: 60_000,
  maxRetries: 2,
  retryBaseDelayMs: 500,
  maxRetryDelayMs: 30_000,
});

/**
 * A {@link ChatModel} for any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM,
 * llama.cpp's server, DeepSeek, …) over `fetch`. Transient failures (429 and 5xx answers, resets,
 * timeouts, truncated bodies) are retried with exponential backoff, honouring `Retry-After`;
 * configuration failures (401, 403, 404 and other 4xx, nothing listening, unknown host, an answer
 * that is not JSON) fail at once. Both throw a {@link ChatModelError} naming the URL, the status and
 * the fix; the caller's `signal` aborts at once with `ABORTED`.
 * @example new OpenAICompatibleChatModel({ baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' })
 */
export class OpenAICompatibleChatModel implements ChatModel {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #options: ResolvedOptions;
  readonly #url: string;

  constructor(options: OpenAICompatibleChatModelOptions) {
    checkOptions(options, {
      where: 'new OpenAICompatibleChatModel options',
      known: OPENAI_COMPATIBLE_CHAT_MODEL_OPTION_KEYS,
      nested: { promptCache: { known: OPENAI_PROMPT_CACHE_PARAMS_OPTION_KEYS } },
    });
    if (options.baseURL.trim() === '' || options.model.trim() === '') {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message:
          'OpenAICompatibleChatModel needs a baseURL and a model, e.g. { baseURL: "http://127.0.0.1:11434/v1", model: "qwen3:8b" }.',
      });
    }
    if (!isHttpUrl(options.baseURL)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `OpenAICompatibleChatModel: baseURL '${options.baseURL}' is not an http(s) URL; use e.g. http://127.0.0.1:11434/v1.`,
      });
    }
    this.#options = { ...DEFAULT_OPENAI_COMPATIBLE_CHAT_MODEL, ...options };
    for (const name of ['timeoutMs', 'maxRetries', 'retryBaseDelayMs', 'maxRetryDelayMs'] as const) {
      const value = this.#options[name];
      if (!Number.isInteger(value) || value < (name === 'timeoutMs' ? 1 : 0)) {
        throw new ContextError({
          code: 'INVALID_OPTIONS',
          message: `OpenAICompatibleChatModel: ${name} must be a whole number ≥ ${name === 'timeoutMs' ? 1 : 0}, got ${value}.`,
        });
      }
    }
    this.#url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
    this.id = `openai-compatible:${options.model}`;
  }

  async generate(request: ChatRequest): Promise<ChatResult> {
    const body = JSON.stringify(this.#body(request));
    const { maxRetries } = this.#options;
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.#attempt(body, request.signal);
      if (outcome.ok) return outcome.result;
      const attempts = attempt + 1;
      if (outcome.failure.kind !== 'transient' || attempt >= maxRetries) {
        throw new ChatModelError({
          ...outcome.failure,
          message: this.#explain(outcome.failure, attempts),
          attempts,
        });
      }
      const delay = retryDelayMs({
        attempt,
        retryAfter: outcome.retryAfter,
        baseMs: this.#options.retryBaseDelayMs,
        maxMs: this.#options.maxRetryDelayMs,
      });
      await sleep(delay, request.signal);
    }
  }

  #body(request: ChatRequest): Record<string, unknown> {
    const tools = request.tools ?? [];
    return {
      model: this.#options.model,
      messages: toOpenAIChatMessages(request.messages).messages,
      ...(tools.length === 0 ? {} : { tools: toOpenAITools(tools) }),
      ...(tools.length === 0 || request.toolChoice === undefined ? {} : { tool_choice: request.toolChoice }),
      ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(this.#options.promptCache === undefined ? {} : openAIPromptCacheParams(this.#options.promptCache)),
    };
  }

  async #attempt(body: string, signal: AbortSignal | undefined): Promise<Attempt> {
    if (signal !== undefined && isAborted(signal)) throw aborted(signal);
    const { timeoutMs } = this.#options;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#post(body, controller.signal);
    } catch (error) {
      if (signal !== undefined && isAborted(signal)) throw aborted(signal);
      if (controller.signal.aborted) {
        return failedWith({
          message: `no answer within ${timeoutMs} ms (timeoutMs)`,
          kind: 'transient',
          reason: 'timeout',
          cause: error,
        });
      }
      return this.#networkFailure(error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A request that failed before an answer (refused, reset, unreachable, …), in words. */
  #networkFailure(error: unknown): Attempt {
    const network = classifyNetworkError(error);
    const text =
      network.reason === 'blocked-port'
        ? `fetch refuses port ${portOf(this.#url)} ("bad port": Node, like browsers, never connects to ports of other protocols such as 6000, 6665-6669 or 10080)`
        : (NETWORK_TEXT[network.reason] ??
          `the request failed: ${error instanceof Error ? error.message : String(error)}`);
    return failedWith({
      message: `${text}${network.code === undefined ? '' : ` (${network.code})`}`,
      kind: network.kind,
      reason: network.reason,
      cause: error,
    });
  }

  async #post(body: string, signal: AbortSignal): Promise<Attempt> {
    const apiKey = this.#options.apiKey;
    const response = await (this.#options.fetch ?? globalThis.fetch)(this.#url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
        ...this.#options.headers,
      },
      body,
      signal,
    });
    // A body cut by a reset throws here; the caller classifies it like any network error.
    const text = await response.text();
    if (!response.ok) {
      return {
        ok: false,
        failure: {
          message: `HTTP ${response.status}: ${excerpt(text)}`,
          kind: failureKindForStatus(response.status),
          reason: 'http-status',
          status: response.status,
        },
        retryAfter: response.headers.get('retry-after') ?? undefined,
      };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return failedWith({ ...unparsable(text, response.headers.get('content-type')), cause: error });
    }
    const read = parseOpenAIResponse(parsed, this.#url);
    return read.ok ? { ok: true, result: read.result } : failedWith(read.failure);
  }

  /** The failure message: the URL, what happened, the attempts and the fix. */
  #explain(failure: ResponseFailure, attempts: number): string {
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
    const head = failure.message.startsWith(this.#url) ? failure.message : `${this.#url}: ${failure.message}`;
    return `${head}${tries}. ${fixFor(failure, this.#options.model)}`;
  }
}

type ResolvedOptions = OpenAICompatibleChatModelOptions & {
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseDelayMs: number;
  readonly maxRetryDelayMs: number;
};

type Attempt =
  | { readonly ok: true; readonly result: ChatResult }
  | { readonly ok: false; readonly failure: ResponseFailure; readonly retryAfter?: string | undefined };

function failedWith(failure: ResponseFailure): Attempt {
  return { ok: false, failure };
}

/** A 200 body that is not JSON: cut (transient) when it starts like JSON, else not an API answer. */
function unparsable(text: string, contentType: string | null): ResponseFailure {
  const looksLikeJson = /^\s*[[{]/.test(text);
  return looksLikeJson
    ? {
        message: `the JSON body is incomplete (${text.length} characters, cut or corrupted): ${excerpt(text)}`,
        kind: 'transient',
        reason: 'truncated-body',
      }
    : {
        message: `the answer is not JSON (content-type ${contentType ?? 'none'}): ${excerpt(text)}`,
        kind: 'configuration',
        reason: 'not-json',
      };
}

const NETWORK_TEXT: Partial<Record<ResponseFailure['reason'], string>> = {
  'connection-refused': 'nothing accepts connections there',
  'host-not-found': 'the host name cannot be resolved',
  'host-unreachable': 'the host cannot be reached',
  'invalid-url': 'the URL is not valid',
  tls: 'the TLS connection failed',
  'connection-reset': 'the connection was closed before the answer was complete',
  timeout: 'the network timed out',
};

function fixFor(failure: ResponseFailure, model: string): string {
  if (failure.kind === 'transient') return transientFix(failure);
  switch (failure.reason) {
    case 'connection-refused':
    case 'host-unreachable':
      return 'Start the model server, or fix the base URL (CLI --model-url).';
    case 'host-not-found':
    case 'invalid-url':
      return 'Fix the base URL (CLI --model-url).';
    case 'blocked-port':
      return 'Run the model server on another port (e.g. 8000, 8080 or 11434) and fix the base URL (CLI --model-url).';
    case 'tls':
      return "Check the URL's scheme (http or https) and the server's certificate.";
    case 'not-json':
    case 'no-choices':
      return 'Check that the base URL points at an OpenAI-compatible API (it usually ends in /v1).';
    default:
      return statusFix(failure.status, model);
  }
}

function transientFix(failure: ResponseFailure): string {
  if (failure.status === 429)
    return 'The endpoint is rate-limiting: retry later, or allow more retries (maxRetries; CLI --max-retries).';
  if (failure.reason === 'timeout')
    return 'The server may be overloaded: retry later, or allow longer (timeoutMs; CLI --timeout-ms).';
  return 'The endpoint may work again later; retry then.';
}

function statusFix(status: number | undefined, model: string): string {
  switch (status) {
    case 401:
      return 'The endpoint rejected the credentials: check the API key (apiKey; CLI --api-key or CTXLOOM_API_KEY).';
    case 403:
      return `The key may not use this endpoint or model '${model}': check its permissions and the model name.`;
    case 404:
      return `Check the base URL (it usually ends in /v1) and the model name '${model}'.`;
    case undefined:
      return 'Check the base URL and the model name.';
    default:
      return `The endpoint refused the request: check the model name '${model}' and the request options.`;
  }
}

/** The URL's port, the scheme's default when it names none. */
function portOf(url: string): string {
  const parsed = new URL(url);
  return parsed.port !== '' ? parsed.port : parsed.protocol === 'https:' ? '443' : '80';
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

// A function call, so TypeScript does not narrow `aborted` to false after the first check.
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function aborted(signal: AbortSignal): ContextError {
  return new ContextError({
    code: 'ABORTED',
    message: 'The model request was aborted.',
    cause: signal.reason,
  });
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat || '(empty body)';
}
