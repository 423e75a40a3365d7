import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { ContentPart, Message, ProviderPart, ToolCall } from '../core/message.js';
import { type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import { checkMessages } from './check-messages.js';
import { foreignOriginOf } from './foreign-origins.js';
import { OPENAI_CHAT, type OpenAIChatOrigins } from './from-openai-chat-messages.js';
import { legalOpenAIName } from './legal-openai-name.js';
import { layoutOf, nativeFieldsOf, objectField } from './native-fields.js';
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
   * @default the key a message was read with by `fromOpenAIChatMessages` (`reasoning_content` or
   * `reasoning`), else 'omit'
   */
  readonly reasoning?: 'omit' | 'reasoning_content';
  /**
   * The `origins` of a `fromOpenAIChatMessages` result: an optimisation only (unchanged messages come
   * back as the very objects read); without it they come back equal, from the messages alone.
   */
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
 * `data:` files as `file` parts, an assistant with tool calls and no text gets `content: null`. Each
 * message's, part's and call's `native['openai-chat']` fields are written with it, and provider parts of
 * this format as they are, so a message read by `fromOpenAIChatMessages` comes back equal from the
 * message alone; reasoning and provider parts of other formats are left out with a warning. Provider rules are enforced:
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
      typeof nativeFieldsOf(message, OPENAI_CHAT)['name'] !== 'string' &&
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
  if (origin?.message === message) return origin.source as OpenAIChatMessage;
  const fresh = freshMessage(message, run);
  // The message's own OpenAI chat fields (role `developer`, `refusal`, unknown keys …) overlaid with
  // the fields ctxloom owns.
  return { ...nativeFieldsOf(message, OPENAI_CHAT), ...fresh } as OpenAIChatMessage;
}

function freshMessage(message: Message, run: Run): OpenAIChatMessage {
  const name = message.name === undefined ? {} : { name: message.name };
  const native = nativeFieldsOf(message, OPENAI_CHAT);
  switch (message.role) {
    case 'system': {
      const role = native['role'] === 'developer' ? 'developer' : 'system';
      return { role, ...contentField(message, textContent(message, run)), ...name } as OpenAIChatMessage;
    }
    case 'user':
      return {
        role: 'user',
        ...contentField(message, userContent(message, run)),
        ...name,
      } as OpenAIChatMessage;
    case 'tool':
      return {
        role: 'tool',
        ...contentField(message, textContent(message, run)),
        tool_call_id: message.toolCallId ?? '',
        // A tool message read with a name gives it back (OpenAI takes it); the name may have been changed.
        ...(typeof native['name'] === 'string' && message.name !== undefined ? { name: message.name } : {}),
      } as OpenAIChatMessage;
    case 'assistant':
      return assistantMessage(message, run);
  }
}

/**
 * The `content` field as the message was read: absent or `null` when it was so and is still empty
 * (`native['openai-chat'].ctxloom.content`), else the content written.
 */
function contentField(
  message: Message,
  content: OpenAIChatMessage['content'],
): { readonly content?: OpenAIChatMessage['content'] } {
  const form = layoutOf(message, OPENAI_CHAT)['content'];
  const isEmpty = message.content === '';
  if (isEmpty && form === 'absent') return {};
  if (isEmpty && form === 'null') return { content: null };
  return { content };
}

function assistantMessage(message: Message, run: Run): OpenAIChatMessage {
  const calls = message.toolCalls ?? [];
  const layout = layoutOf(message, OPENAI_CHAT);
  const written = textContent(message, { ...run, emptyAs: calls.length > 0 ? null : '' });
  const content = calls.length > 0 && written === '' && layout['content'] !== 'string' ? null : written;
  const reasoning = message.reasoning;
  const reasoningKey = reasoningKeyOf(message, run);
  if (reasoning !== undefined && reasoningKey === undefined) {
    run.warnings.push({ type: 'dropped-field', index: run.index, message: 'assistant reasoning omitted' });
  }
  if (message.toolCalls !== undefined && calls.length === 0) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'empty tool_calls list not sent (OpenAI refuses an empty array)',
    });
  }
  leftOutReasoning(message, run);
  return {
    role: 'assistant',
    ...contentField(message, content),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(calls.length === 0 ? {} : { tool_calls: calls.map((call) => toolCall(call)) }),
    ...(reasoning !== undefined && reasoningKey !== undefined ? { [reasoningKey]: reasoning } : {}),
  } as OpenAIChatMessage;
}

/** Where reasoning text goes: the option, else the key it was read with, else nowhere. */
function reasoningKeyOf(message: Message, run: Run): string | undefined {
  const option = run.options.reasoning;
  if (option === 'omit') return undefined;
  if (option === 'reasoning_content') return 'reasoning_content';
  const read = layoutOf(message, OPENAI_CHAT)['reasoning'];
  return read === 'reasoning_content' || read === 'reasoning' ? read : undefined;
}

/** Reasoning parts (signed, redacted, encrypted: another provider's) have no place in chat completions. */
function leftOutReasoning(message: Message, run: Run): void {
  if (typeof message.content === 'string') return;
  for (const part of message.content) {
    if (part.type !== 'reasoning') continue;
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message: `${part.provider ?? 'plain'} reasoning part left out: chat completions take no reasoning blocks`,
    });
  }
}

/** A tool call: its `native['openai-chat']` fields with the id, type, name and arguments ctxloom owns. */
function toolCall(call: ToolCall): OpenAIChatToolCall {
  const native = nativeFieldsOf(call, OPENAI_CHAT);
  const fn = objectField(native, 'function');
  // The call's own fields (`extra_content`, `index` …) overlaid with the owned ones.
  return {
    ...native,
    id: call.id,
    type: 'function',
    function: { ...fn, name: call.name, arguments: call.arguments },
  } as OpenAIChatToolCall;
}

function textContent(
  message: Message,
  run: Run & { readonly emptyAs?: '' | null },
): string | OpenAIChatTextPart[] | null {
  if (typeof message.content === 'string') return message.content;
  const parts: OpenAIChatTextPart[] = [];
  for (const part of message.content) {
    if (part.type === 'text') parts.push(textPart(part));
    else if (part.type === 'provider' && part.format === OPENAI_CHAT) parts.push(providerValue(part));
    else if (part.type !== 'reasoning')
      unsupported(part, { ...run, why: `${message.role} messages take only text` });
  }
  return parts.length === 0
    ? emptyParts({ ...run, sentAs: run.emptyAs === undefined ? '' : run.emptyAs })
    : parts;
}

function userContent(message: Message, run: Run): string | OpenAIChatUserPart[] {
  if (typeof message.content === 'string') return message.content;
  const parts = message.content.flatMap((part) => {
    const written = userPart(part, run);
    return written === undefined ? [] : [written];
  });
  return parts.length === 0 ? emptyParts({ ...run, sentAs: '' }) : parts;
}

function userPart(part: ContentPart, run: Run): OpenAIChatUserPart | undefined {
  if (part.type === 'text') return textPart(part);
  if (part.type === 'provider') {
    if (part.format === OPENAI_CHAT) return providerValue(part);
    unsupported(part, { ...run, why: `a ${part.format} ${part.kind} has no place in chat completions` });
    return undefined;
  }
  if (part.type === 'reasoning') {
    unsupported(part, { ...run, why: 'user messages take no reasoning' });
    return undefined;
  }
  const native = nativeFieldsOf(part, OPENAI_CHAT);
  if (part.type === 'image') {
    imageFieldWarnings(part, run);
    const image = { ...objectField(native, 'image_url'), url: part.url };
    // The part's own fields (`detail` …) overlaid with the URL ctxloom owns.
    return { ...native, type: 'image_url', image_url: image } as OpenAIChatUserPart;
  }
  if (parseDataUrl(part.url) === undefined) {
    unsupported(part, { ...run, why: 'chat completions take files only as data: URLs' });
    return undefined;
  }
  const filename = part.filename === undefined ? {} : { filename: part.filename };
  const file = { ...objectField(native, 'file'), file_data: part.url, ...filename };
  // As above, for a file.
  return { ...native, type: 'file', file } as OpenAIChatUserPart;
}

function textPart(part: Extract<ContentPart, { type: 'text' }>): OpenAIChatTextPart {
  // The part's own fields (`cache_control` …) overlaid with the text ctxloom owns.
  return { ...nativeFieldsOf(part, OPENAI_CHAT), type: 'text', text: part.text } as OpenAIChatTextPart;
}

function providerValue<TPart>(part: ProviderPart): TPart {
  // A provider part of format openai-chat holds a content part as the caller's request had it.
  return part.value as unknown as TPart;
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

function emptyParts<TSent extends '' | null>(run: Run & { readonly sentAs: TSent }): TSent {
  run.warnings.push({
    type: 'converted',
    index: run.index,
    message: `empty part list sent as ${JSON.stringify(run.sentAs)} (OpenAI refuses an empty content array)`,
  });
  return run.sentAs;
}

function unsupported(part: ContentPart, run: Run & { readonly why: string }): void {
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.type} part left out: ${run.why}`,
  });
}
