import type { ContentPart, Message } from '../core/message.js';
import { type AdapterResult, type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import type { OpenAIChatMessage, OpenAIChatTextPart, OpenAIChatUserPart } from './openai-chat-types.js';

/** Options for {@link toOpenAIChatMessages}. */
export type ToOpenAIChatMessagesOptions = {
  /**
   * What to do with assistant reasoning: `omit` it (OpenAI rejects unknown fields; a warning names
   * it) or send it as `reasoning_content` (DeepSeek, Qwen, vLLM and other OpenAI-compatible servers).
   * @default 'omit'
   */
  readonly reasoning?: 'omit' | 'reasoning_content';
};

/**
 * Converts messages to OpenAI chat completions `messages`: tool calls as
 * `{ id, type: 'function', function: { name, arguments } }`, tool results as `role: 'tool'` with
 * `tool_call_id`, images as `image_url` parts, `data:` files as `file` parts, an assistant with tool
 * calls and no text gets `content: null`. Message ids and metadata are ctxloom bookkeeping and are
 * never sent. Parts the format cannot hold (images outside user messages, non-`data:` files) and
 * omitted reasoning are named in the warnings. An empty part list is sent as `''` (the API rejects empty arrays).
 */
export function toOpenAIChatMessages(
  messages: readonly Message[],
  options: ToOpenAIChatMessagesOptions = {},
): AdapterResult<OpenAIChatMessage> {
  const warnings: AdapterWarning[] = [];
  const callNames = new Map<string, string>();
  const out = messages.map((message, index) => {
    for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
    if (message.role === 'tool' && message.name !== callNames.get(message.toolCallId ?? '')) {
      warnings.push({
        type: 'dropped-field',
        index,
        message: 'tool message name not sent (read back from its call)',
      });
    }
    return convert(message, { index, warnings, options });
  });
  return { messages: out, warnings };
}

type Run = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly options: ToOpenAIChatMessagesOptions;
};

function convert(message: Message, run: Run): OpenAIChatMessage {
  const name = message.name === undefined ? {} : { name: message.name };
  switch (message.role) {
    case 'system':
      return { role: 'system', content: textContent(message, run), ...name };
    case 'user':
      return { role: 'user', content: userContent(message, run), ...name };
    case 'tool':
      if (message.toolCallId === undefined || message.toolCallId === '') {
        run.warnings.push({
          type: 'converted',
          index: run.index,
          message: 'tool message without toolCallId sent with ""',
        });
      }
      return { role: 'tool', content: textContent(message, run), tool_call_id: message.toolCallId ?? '' };
    case 'assistant':
      return assistantMessage(message, run);
  }
}

function assistantMessage(message: Message, run: Run): OpenAIChatMessage {
  const calls = message.toolCalls ?? [];
  const content = textContent(message, run);
  const reasoning = message.reasoning;
  if (reasoning !== undefined && (run.options.reasoning ?? 'omit') === 'omit') {
    run.warnings.push({ type: 'dropped-field', index: run.index, message: 'assistant reasoning omitted' });
  }
  return {
    role: 'assistant',
    content: calls.length > 0 && content === '' ? null : content,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(calls.length === 0
      ? {}
      : {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
    ...(reasoning !== undefined && run.options.reasoning === 'reasoning_content'
      ? { reasoning_content: reasoning }
      : {}),
  };
}

function textContent(message: Message, run: Run): string | readonly OpenAIChatTextPart[] {
  if (typeof message.content === 'string') return message.content;
  const parts: OpenAIChatTextPart[] = [];
  for (const part of message.content) {
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else unsupported(part, `${message.role} messages take only text`, run);
  }
  return parts.length === 0 ? emptyParts(run) : parts;
}

function userContent(message: Message, run: Run): string | readonly OpenAIChatUserPart[] {
  if (typeof message.content === 'string') return message.content;
  const parts: OpenAIChatUserPart[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      parts.push({ type: 'text', text: part.text });
    } else if (part.type === 'image') {
      imageFieldWarnings(part, run);
      parts.push({ type: 'image_url', image_url: { url: part.url } });
    } else if (parseDataUrl(part.url) !== undefined) {
      parts.push({
        type: 'file',
        file: { file_data: part.url, ...(part.filename === undefined ? {} : { filename: part.filename }) },
      });
    } else {
      unsupported(part, 'chat completions take files only as data: URLs', run);
    }
  }
  return parts.length === 0 ? emptyParts(run) : parts;
}

function imageFieldWarnings(part: Extract<ContentPart, { type: 'image' }>, run: Run): void {
  if (part.path !== undefined) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: `image path ${part.path} not sent`,
    });
  }
  if (part.mediaType !== undefined && parseDataUrl(part.url)?.mediaType !== part.mediaType) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: `image media type ${part.mediaType} not sent`,
    });
  }
}

function emptyParts(run: Run): '' {
  run.warnings.push({ type: 'converted', index: run.index, message: 'empty part list sent as ""' });
  return '';
}

function unsupported(part: ContentPart, why: string, run: Run): void {
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.type} part left out: ${why}`,
  });
}
