import { ContextError } from '../core/errors.js';
import type { ToolCall } from '../core/message.js';
import type { ChatResult, FinishReason } from './chat-model.js';

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
};

/** Reads an OpenAI chat-completions response body into a {@link ChatResult}. */
export function parseOpenAIResponse(body: unknown): ChatResult {
  const choice = firstOf(field(body, 'choices'));
  const message = field(choice, 'message');
  if (choice === undefined || typeof message !== 'object' || message === null) {
    throw new ContextError({
      code: 'MODEL_REQUEST_FAILED',
      message: `The model endpoint answered without choices[0].message: ${JSON.stringify(body).slice(0, 300)}`,
    });
  }
  const toolCalls = parseToolCalls(field(message, 'tool_calls'));
  const reason = field(choice, 'finish_reason');
  const mapped = typeof reason === 'string' ? (FINISH_REASONS[reason] ?? 'other') : 'other';
  const reasoning = field(message, 'reasoning_content') ?? field(message, 'reasoning');
  const usage = field(body, 'usage');
  const inputTokens = field(usage, 'prompt_tokens');
  const outputTokens = field(usage, 'completion_tokens');
  return {
    text: contentText(field(message, 'content')),
    finishReason: toolCalls.length > 0 && mapped === 'stop' ? 'tool-calls' : mapped,
    toolCalls,
    usage: {
      ...(typeof inputTokens === 'number' ? { inputTokens } : {}),
      ...(typeof outputTokens === 'number' ? { outputTokens } : {}),
    },
    ...(typeof reasoning === 'string' && reasoning !== '' ? { reasoning } : {}),
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
