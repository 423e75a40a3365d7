import { toOpenAIChatMessages } from '../adapters/to-openai-chat-messages.js';
import { ContextError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ChatResult } from './chat-model.js';
import { parseOpenAIResponse } from './parse-openai-response.js';
import { retryDelayMs, sleep } from './retry-delay.js';
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
  /** Retries after a 429, a 5xx, a network error or a timeout. @default 2 */
  readonly maxRetries?: number;
  /** First backoff delay; doubles per retry unless the server sends `Retry-After`. @default 500 */
  readonly retryBaseDelayMs?: number;
  /** Cap on any single wait, `Retry-After` included. @default 30000 */
  readonly maxRetryDelayMs?: number;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
};

/**
 * A {@link ChatModel} for any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM,
 * llama.cpp's server, DeepSeek, …) over `fetch`. Retries 429 and 5xx answers, network errors and
 * timeouts with exponential backoff, honouring `Retry-After`; the caller's `signal` aborts at once
 * with `ABORTED`. Other failures throw `MODEL_REQUEST_FAILED` with the HTTP status and the start of
 * the body.
 * @example new OpenAICompatibleChatModel({ baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' })
 */
export class OpenAICompatibleChatModel implements ChatModel {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #options: OpenAICompatibleChatModelOptions;
  readonly #url: string;

  constructor(options: OpenAICompatibleChatModelOptions) {
    if (options.baseURL.trim() === '' || options.model.trim() === '') {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message:
          'OpenAICompatibleChatModel needs a baseURL and a model, e.g. { baseURL: "http://127.0.0.1:11434/v1", model: "qwen3:8b" }.',
      });
    }
    this.#options = options;
    this.#url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
    this.id = `openai-compatible:${options.model}`;
  }

  async generate(request: ChatRequest): Promise<ChatResult> {
    const body = JSON.stringify(this.#body(request));
    const maxRetries = this.#options.maxRetries ?? 2;
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.#attempt(body, request.signal);
      if (outcome.kind === 'ok') return parseOpenAIResponse(outcome.body);
      if (!outcome.retriable || attempt >= maxRetries) throw outcome.error;
      const delay = retryDelayMs({
        attempt,
        retryAfter: outcome.retryAfter,
        baseMs: this.#options.retryBaseDelayMs ?? 500,
        maxMs: this.#options.maxRetryDelayMs ?? 30_000,
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
    };
  }

  async #attempt(body: string, signal: AbortSignal | undefined): Promise<Attempt> {
    if (signal !== undefined && isAborted(signal)) throw aborted(signal);
    const timeoutMs = this.#options.timeoutMs ?? 60_000;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#post(body, controller.signal);
    } catch (error) {
      if (signal !== undefined && isAborted(signal)) throw aborted(signal);
      if (ContextError.isInstance(error)) throw error;
      const message = controller.signal.aborted
        ? `No answer from ${this.#url} within ${timeoutMs} ms (timeoutMs).`
        : `Request to ${this.#url} failed: ${error instanceof Error ? error.message : String(error)}.`;
      return { kind: 'failed', retriable: true, error: failed(message, { cause: error }) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
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
    const text = await response.text();
    if (response.ok) return parseBody(text);
    return {
      kind: 'failed',
      retriable: response.status === 429 || response.status >= 500,
      error: failed(`HTTP ${response.status} from ${this.#url}: ${excerpt(text)}`, {
        details: { status: response.status },
      }),
      retryAfter: response.headers.get('retry-after') ?? undefined,
    };
  }
}

type Attempt =
  | { readonly kind: 'ok'; readonly body: unknown }
  | {
      readonly kind: 'failed';
      readonly retriable: boolean;
      readonly error: ContextError;
      readonly retryAfter?: string | undefined;
    };

function parseBody(text: string): Attempt {
  try {
    return { kind: 'ok', body: JSON.parse(text) };
  } catch (error) {
    return {
      kind: 'failed',
      retriable: false,
      error: failed(`The model endpoint returned invalid JSON: ${excerpt(text)}`, { cause: error }),
    };
  }
}

function failed(
  message: string,
  extra: { readonly details?: Readonly<Record<string, unknown>>; readonly cause?: unknown } = {},
): ContextError {
  return new ContextError({ code: 'MODEL_REQUEST_FAILED', message, ...extra });
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
