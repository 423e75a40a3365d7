import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import { type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import { checkMessages } from './check-messages.js';
import { foreignOriginOf } from './foreign-origins.js';
import type { OpenAIChatOrigins } from './from-openai-chat-messages.js';
import { legalOpenAIName } from './legal-openai-name.js';
import type {
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './openai-chat-types.js';
import {
  repairToolPairing,
  TOOL_PAIRING_OPTION_KEYS,
  type ToolPairingOptions,
} from './repair-tool-pairing.js';
import { scrubWithWarning } from './scrub-lone-surrogates.js';

/** Options for {@link toOpenAIChatMessages}. */
export type ToOpenAIChatMessagesOptions = ToolPairingOptions & {
  /**
   * What to do with assistant reasoning: `omit` it (OpenAI rejects unknown fields; a warning names
   * it) or send it as `reasoning_content` (DeepSeek, Qwen, vLLM and other OpenAI-compatible servers).
   * @default 'omit'
   */
  readonly reasoning?: 'omit' | 'reasoning_content';
  /** The `origins` of a `fromOpenAIChatMessages` result: messages read there come back as they were. */
  readonly origins?: OpenAIChatOrigins;
};

/** The keys of {@link ToOpenAIChatMessagesOptions}, for `checkOptions`. @internal */
export const TO_OPENAI_CHAT_MESSAGES_OPTION_KEYS = {
  ...TOOL_PAIRING_OPTION_KEYS,
  reasoning: true,
  origins: true,
} as const satisfies OptionKeys<ToOpenAIChatMessagesOptions>;

/** What {@link toOpenAIChatMessages} returns: the request's `messages` and what did not convert exactly. */
export type ToOpenAIChatMessagesResult = {
  readonly messages: OpenAIChatMessage[];
  readonly warnings: readonly AdapterWarning[];
};

type Run = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly options: ToOpenAIChatMessagesOptions;
};

/**
 * Converts messages to OpenAI chat completions `messages` (assignable to the `openai` SDK's
 * `ChatCompletionMessageParam[]`): tool calls as `{ id, type: 'function', function: { name,
 * arguments } }`, tool results as `role: 'tool'` with `tool_call_id`, images as `image_url` parts,
 * `data:` files as `file` parts, an assistant with tool calls and no text gets `content: null`. A
 * message read by `fromOpenAIChatMessages` (pass its `origins`) comes back as the same object when
 * unchanged, or as the original with only the fields ctxloom changed. Provider rules are enforced:
 * the pairing is made legal, names are made to match `^[a-zA-Z0-9_-]{1,64}$` (or dropped), lone
 * surrogates are replaced. Ids and metadata are ctxloom bookkeeping and are never sent. Everything
 * changed or left out is named in the warnings. An empty part list is sent as `''`.
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `toolPairing: 'throw'` and a broken pairing.
 */
export function toOpenAIChatMessages(
  messages: readonly Message[],
  options: ToOpenAIChatMessagesOptions = {},
): ToOpenAIChatMessagesResult {
  checkOptions(options, {
    where: 'toOpenAIChatMessages options',
    known: TO_OPENAI_CHAT_MESSAGES_OPTION_KEYS,
  });
  checkMessages(messages, 'ctxloom messages (to OpenAI chat)');
  const repaired = repairToolPairing(messages, { policy: options.toolPairing ?? 'repair' });
  const warnings: AdapterWarning[] = [...repaired.warnings];
  const callNames = new Map<string, string>();
  const out = repaired.messages.map((message, position) => {
    const index = repaired.sourceIndexes[position] ?? position;
    for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
    if (
      message.role === 'tool' &&
      message.name !== undefined &&
      message.name !== callNames.get(message.toolCallId ?? '')
    ) {
      warnings.push({
        type: 'dropped-field',
        index,
        message: 'tool message name not sent (read back from its call)',
      });
    }
    const run = { index, warnings, options };
    const written = legalName(convert(message, run), run);
    return scrubWithWarning(written, run);
  });
  return { messages: out, warnings };
}

function convert(message: Message, run: Run): OpenAIChatMessage {
  const origin = foreignOriginOf(message, run.options.origins);
  // A message read by fromOpenAIChatMessages is an OpenAI chat message (with whatever else it had).
  const source = origin?.source as OpenAIChatMessage | undefined;
  if (origin?.message === message && source !== undefined) return source;
  const fresh = freshMessage(message, run);
  if (source === undefined || origin === undefined) return fresh;
  const { message: before } = origin;
  // Keep the source's role (developer stays developer) and every field ctxloom does not own.
  const changed: Record<string, unknown> = {
    ...source,
    ...(message.content === before.content ? {} : { content: fresh.content }),
  };
  if (message.name !== before.name) assign(changed, { name: message.name });
  if (fresh.role === 'tool') changed['tool_call_id'] = fresh.tool_call_id;
  if (fresh.role === 'assistant') rebuildAssistant(changed, { fresh, message, before });
  // Built from a chat message of the same role: the owned fields were replaced by valid ones.
  return changed as OpenAIChatMessage;
}

function rebuildAssistant(
  changed: Record<string, unknown>,
  run: {
    readonly fresh: Extract<OpenAIChatMessage, { role: 'assistant' }>;
    readonly message: Message;
    readonly before: Message;
  },
): void {
  const { fresh, message, before } = run;
  if (
    message.content !== before.content ||
    (message.toolCalls?.length ?? 0) !== (before.toolCalls?.length ?? 0)
  ) {
    changed['content'] = fresh.content;
  }
  if (message.toolCalls !== before.toolCalls) assign(changed, { tool_calls: fresh.tool_calls });
  if (message.reasoning !== before.reasoning) {
    assign(changed, { reasoning: undefined, reasoning_content: fresh.reasoning_content });
  }
}

/** Sets each field, or removes it when the value is `undefined`. */
function assign(target: Record<string, unknown>, fields: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete target[key];
    else target[key] = value;
  }
}

function freshMessage(message: Message, run: Run): OpenAIChatMessage {
  const name = message.name === undefined ? {} : { name: message.name };
  switch (message.role) {
    case 'system':
      return { role: 'system', content: textContent(message, run), ...name };
    case 'user':
      return { role: 'user', content: userContent(message, run), ...name };
    case 'tool':
      return { role: 'tool', content: textContent(message, run), tool_call_id: message.toolCallId ?? '' };
    case 'assistant':
      return assistantMessage(message, run);
  }
}

function assistantMessage(message: Message, run: Run): OpenAIChatMessage {
  const calls = message.toolCalls ?? [];
  const content = textContent(message, run);
  const reasoning = message.reasoning;
  reasoningWarning(message, run);
  return {
    role: 'assistant',
    content: calls.length > 0 && content === '' ? null : content,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(calls.length === 0 ? {} : { tool_calls: calls.map((call) => toolCall(call, run)) }),
    ...(reasoning !== undefined && run.options.reasoning === 'reasoning_content'
      ? { reasoning_content: reasoning }
      : {}),
  };
}

function reasoningWarning(message: Message, run: Run): void {
  if (message.reasoning !== undefined && (run.options.reasoning ?? 'omit') === 'omit') {
    run.warnings.push({ type: 'dropped-field', index: run.index, message: 'assistant reasoning omitted' });
  }
}

/** A tool call: the original (with only what changed replaced) when it was read from OpenAI. */
function toolCall(call: ToolCall, run: Run): OpenAIChatToolCall {
  const fresh: OpenAIChatToolCall = {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  };
  // A tool call read by fromOpenAIChatMessages is an OpenAI tool call (with whatever else it had).
  const source = run.options.origins?.parts.get(call) as OpenAIChatToolCall | undefined;
  if (source === undefined) return fresh;
  return { ...source, ...fresh, function: { ...source.function, ...fresh.function } };
}

function textContent(message: Message, run: Run): string | OpenAIChatTextPart[] {
  if (typeof message.content === 'string') return message.content;
  const parts: OpenAIChatTextPart[] = [];
  for (const part of message.content) {
    const known = knownPart(part, run);
    if (known !== undefined && known.type === 'text') parts.push(known);
    else if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else unsupported(part, { ...run, why: `${message.role} messages take only text` });
  }
  return parts.length === 0 ? emptyParts(run) : parts;
}

function userContent(message: Message, run: Run): string | OpenAIChatUserPart[] {
  if (typeof message.content === 'string') return message.content;
  const parts: OpenAIChatUserPart[] = [];
  for (const part of message.content) {
    const known = knownPart(part, run);
    if (known !== undefined) parts.push(known);
    else if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning' || part.type === 'provider') continue;
    else if (part.type === 'image') {
      imageFieldWarnings(part, run);
      parts.push({ type: 'image_url', image_url: { url: part.url } });
    } else if (parseDataUrl(part.url) !== undefined) {
      parts.push({
        type: 'file',
        file: { file_data: part.url, ...(part.filename === undefined ? {} : { filename: part.filename }) },
      });
    } else unsupported(part, { ...run, why: 'chat completions take files only as data: URLs' });
  }
  return parts.length === 0 ? emptyParts(run) : parts;
}

/** The OpenAI part a ctxloom part was read from (given back as it was: `detail`, `cache_control` …). */
function knownPart(part: ContentPart, run: Run): OpenAIChatUserPart | undefined {
  // A part read by fromOpenAIChatMessages is an OpenAI content part (with whatever else it had).
  return run.options.origins?.parts.get(part) as OpenAIChatUserPart | undefined;
}

/** Names are made to match OpenAI's `^[a-zA-Z0-9_-]{1,64}$`, or dropped. */
function legalName(message: OpenAIChatMessage, run: Run): OpenAIChatMessage {
  if (message.role === 'tool' || message.name === undefined) return message;
  const legal = legalOpenAIName(message.name);
  if (legal === message.name) return message;
  const { name: _name, ...rest } = message;
  run.warnings.push({
    type: 'repaired',
    index: run.index,
    message:
      legal === undefined
        ? `name ${JSON.stringify(message.name)} not sent: OpenAI names match ^[a-zA-Z0-9_-]{1,64}$`
        : `name ${JSON.stringify(message.name)} sent as ${legal}: OpenAI names match ^[a-zA-Z0-9_-]{1,64}$`,
  });
  return legal === undefined ? rest : { ...rest, name: legal };
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

function unsupported(part: ContentPart, run: Run & { readonly why: string }): void {
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.type} part left out: ${run.why}`,
  });
}
