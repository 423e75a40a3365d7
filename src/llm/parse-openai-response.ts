import type { ToolCall } from '../core/message.js';
import type { ChatResult, FinishReason } from './chat-model.js';
import type { ChatModelErrorOptions } from './chat-model-error.js';
import { failureKindForStatus } from './to-chat-model-error.js';

// OpenAI's reasons plus the spellings other OpenAI-compatible servers use for the same ends.
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  eos: 'stop',
  eos_token: 'stop',
  length: 'length',
  max_tokens: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  tool_use: 'tool-calls',
  content_filter: 'content-filter',
  refusal: 'content-filter',
  safety: 'content-filter',
  error: 'error',
};

const TRANSIENT_ERROR_LABEL = /rate|server|overload|timeout|unavailable|internal|busy/i;

/** A failure read from a response body: a {@link ChatModelError}'s options without the attempt count. */
export type ResponseFailure = Omit<ChatModelErrorOptions, 'attempts'>;

/**
 * Reads an OpenAI chat-completions response body into a {@link ChatResult}. A body without
 * `choices[0].message` is a failure: classified by its `error.code` / `error.status` when it carries
 * one (some gateways answer 200 with an error object), else `configuration` (not a chat-completions
 * API).
 */
export function parseOpenAIResponse(
  body: unknown,
  url: string,
):
  | { readonly ok: true; readonly result: ChatResult }
  | { readonly ok: false; readonly failure: ResponseFailure } {
  const choice = firstOf(field(body, 'choices'));
  const message = field(choice, 'message');
  if (choice === undefined || typeof message !== 'object' || message === null) {
    return { ok: false, failure: noChoices(body, url) };
  }
  const toolCalls = parseToolCalls(field(message, 'tool_calls'));
  const raw = field(choice, 'finish_reason');
  const mapped: FinishReason =
    typeof raw === 'string' && raw !== '' ? (FINISH_REASONS[raw] ?? 'other') : 'unknown';
  const reasoning = field(message, 'reasoning_content') ?? field(message, 'reasoning');
  const usage = field(body, 'usage');
  const inputTokens = field(usage, 'prompt_tokens');
  const outputTokens = field(usage, 'completion_tokens');
  const result: ChatResult = {
    text: contentText(field(message, 'content')),
    finishReason: toolCalls.length > 0 && mapped === 'stop' ? 'tool-calls' : mapped,
    ...(typeof raw === 'string' && raw !== '' ? { rawFinishReason: raw } : {}),
    toolCalls,
    usage: {
      ...(typeof inputTokens === 'number' ? { inputTokens } : {}),
      ...(typeof outputTokens === 'number' ? { outputTokens } : {}),
    },
    ...(typeof reasoning === 'string' && reasoning !== '' ? { reasoning } : {}),
  };
  return { ok: true, result };
}

function noChoices(body: unknown, url: string): ResponseFailure {
  const error = field(body, 'error');
  const code = field(error, 'code') ?? field(error, 'status');
  const status = typeof code === 'number' && Number.isInteger(code) && code >= 400 ? code : undefined;
  const detail = field(error, 'message');
  const excerpt = JSON.stringify(body)?.slice(0, 300) ?? String(body);
  if (status !== undefined) {
    return {
      message: `${url} answered 200 with an error ${status}: ${typeof detail === 'string' ? detail : excerpt}`,
      kind: failureKindForStatus(status),
      reason: 'http-status',
      status,
    };
  }
  if (error !== undefined) {
    const label = [field(error, 'type'), field(error, 'code')].filter((part) => typeof part === 'string');
    return {
      message: `${url} answered 200 with an error: ${typeof detail === 'string' ? detail : excerpt}`,
      kind: TRANSIENT_ERROR_LABEL.test(label.join(' ')) ? 'transient' : 'configuration',
      reason: 'no-choices',
    };
  }
  return {
    message: `${url} answered without choices[0].message, so it is not an OpenAI chat-completions API: ${excerpt}. Check the base URL (it usually ends in /v1).`,
    kind: 'configuration',
    reason: 'no-choices',
  };
}

function parseToolCalls(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.map((call: unknown) => {
    const fn = field(call, 'function');
    const args = field(fn, 'arguments');
    const id = field(call, 'id');
    const name = field(fn, 'name');
    return {
      id: typeof id === 'string' ? id : '',
      name: typeof name === 'string' ? name : '',
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    };
  });
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => field(part, 'text'))
    .filter((text): text is string => typeof text === 'string')
    .join('');
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : undefined;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}
