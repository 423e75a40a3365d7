import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import { type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import { checkMessages } from './check-messages.js';
import { foreignOriginOf } from './foreign-origins.js';
import type { OpenAIResponsesOrigins } from './from-openai-responses-input.js';
import type {
  OpenAIResponsesFunctionCall,
  OpenAIResponsesInputContent,
  OpenAIResponsesInputItem,
} from './openai-responses-types.js';
import {
  repairToolPairing,
  TOOL_PAIRING_OPTION_KEYS,
  type ToolPairingOptions,
} from './repair-tool-pairing.js';
import { scrubWithWarning } from './scrub-lone-surrogates.js';

/** Options for {@link toOpenAIResponsesInput}. */
export type ToOpenAIResponsesInputOptions = ToolPairingOptions & {
  /** The `origins` of a `fromOpenAIResponsesInput` result: messages read there come back as their items. */
  readonly origins?: OpenAIResponsesOrigins;
};

/** The keys of {@link ToOpenAIResponsesInputOptions}, for `checkOptions`. @internal */
export const TO_OPENAI_RESPONSES_INPUT_OPTION_KEYS = {
  ...TOOL_PAIRING_OPTION_KEYS,
  origins: true,
} as const satisfies OptionKeys<ToOpenAIResponsesInputOptions>;

/** What {@link toOpenAIResponsesInput} returns: the `input` items of a Responses API request. */
export type ToOpenAIResponsesInputResult = {
  readonly items: OpenAIResponsesInputItem[];
  readonly warnings: readonly AdapterWarning[];
};

type Run = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly options: ToOpenAIResponsesInputOptions;
};
type Item = Readonly<Record<string, unknown>>;

/**
 * Converts messages to the `input` of an OpenAI Responses API request (assignable to the `openai`
 * SDK's `ResponseInputItem[]`): system and user messages as message items (`input_text`,
 * `input_image`, `input_file`), an assistant message as a message item plus one `function_call` per
 * tool call, a tool result as a `function_call_output`. A message read by `fromOpenAIResponsesInput`
 * (pass its `origins`) comes back as the very items it was read from when unchanged (reasoning items
 * with encrypted content included), or with only what ctxloom changed. Pairing is made legal and lone
 * surrogates are replaced; everything changed or left out is named in the warnings.
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `toolPairing: 'throw'` and a broken pairing.
 */
export function toOpenAIResponsesInput(
  messages: readonly Message[],
  options: ToOpenAIResponsesInputOptions = {},
): ToOpenAIResponsesInputResult {
  checkOptions(options, {
    where: 'toOpenAIResponsesInput options',
    known: TO_OPENAI_RESPONSES_INPUT_OPTION_KEYS,
  });
  checkMessages(messages, 'ctxloom messages (to OpenAI Responses)');
  const repaired = repairToolPairing(messages, { policy: options.toolPairing ?? 'repair' });
  const warnings: AdapterWarning[] = [...repaired.warnings];
  const items = repaired.messages.flatMap((message, position) => {
    const index = repaired.sourceIndexes[position] ?? position;
    return itemsOf(message, { index, warnings, options }).map((item) => {
      return scrubWithWarning(item, { index, warnings });
    });
  });
  return { items, warnings };
}

function itemsOf(message: Message, run: Run): OpenAIResponsesInputItem[] {
  const origin = foreignOriginOf(message, run.options.origins);
  // Items read by fromOpenAIResponsesInput are the caller's Responses items (passed through as they were).
  const source = origin?.source as readonly OpenAIResponsesInputItem[] | undefined;
  if (origin?.message === message && source !== undefined) return [...source];
  if (message.name !== undefined && message.role !== 'tool') {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'name not sent: Responses messages have none',
    });
  }
  const before = origin?.message;
  const [first] = source ?? [];
  const isSameContent = before !== undefined && message.content === before.content;
  switch (message.role) {
    case 'system':
    case 'user':
      if (first === undefined || !('role' in first))
        return [{ role: message.role, content: inputContent(message, run) }];
      return [isSameContent ? first : { ...first, content: inputContent(message, run) }];
    case 'tool':
      return [toolItem(message, { ...run, first, isSameContent })];
    case 'assistant':
      return assistantItems(message, { ...run, source: source ?? [], before });
  }
}

function toolItem(
  message: Message,
  run: Run & { readonly first: OpenAIResponsesInputItem | undefined; readonly isSameContent: boolean },
): OpenAIResponsesInputItem {
  const source = run.first?.type === 'function_call_output' ? run.first : undefined;
  const output = run.isSameContent && source !== undefined ? source.output : inputContent(message, run);
  return { ...source, type: 'function_call_output', call_id: message.toolCallId ?? '', output };
}

function assistantItems(
  message: Message,
  run: Run & { readonly source: readonly OpenAIResponsesInputItem[]; readonly before: Message | undefined },
): OpenAIResponsesInputItem[] {
  const isSameContent = run.before !== undefined && message.content === run.before.content;
  const isSameReasoning = run.before !== undefined && message.reasoning === run.before.reasoning;
  if (message.reasoning !== undefined && message.reasoning !== '' && !isSameReasoning) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'reasoning left out (the Responses API takes reasoning only as the items it returned)',
    });
  }
  const calls = new Map((message.toolCalls ?? []).map((call) => [call.id, functionCall(call, run)]));
  const text = textOf(message, run);
  const contentItem: OpenAIResponsesInputItem[] = text === '' ? [] : [{ role: 'assistant', content: text }];
  const firstContent = run.source.findIndex((item) => 'role' in item);
  const out = run.source.flatMap((item, index): OpenAIResponsesInputItem[] => {
    if (item.type === 'function_call') {
      const call = calls.get(item.call_id);
      calls.delete(item.call_id);
      return call === undefined ? [] : [call];
    }
    if (item.type === 'reasoning') return isSameReasoning ? [item] : [];
    if (!('role' in item) || isSameContent) return [item];
    return index === firstContent ? contentItem : [];
  });
  if (!isSameContent && firstContent === -1) {
    const firstCall = out.findIndex((item) => item.type === 'function_call');
    out.splice(firstCall === -1 ? out.length : firstCall, 0, ...contentItem);
  }
  return [...out, ...calls.values()];
}

function functionCall(call: ToolCall, run: Run): OpenAIResponsesFunctionCall {
  const fresh: OpenAIResponsesFunctionCall = {
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
  };
  // A call read by fromOpenAIResponsesInput maps to its function_call item.
  const source = run.options.origins?.parts.get(call) as OpenAIResponsesFunctionCall | undefined;
  if (source === undefined) return fresh;
  return source.call_id === call.id && source.name === call.name && source.arguments === call.arguments
    ? source
    : { ...source, ...fresh };
}

function textOf(message: Message, run: Run): string {
  if (typeof message.content === 'string') return message.content;
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `${part.type} part of an assistant message left out`,
      });
  }
  return texts.join('');
}

function inputContent(message: Message, run: Run): string | OpenAIResponsesInputContent[] {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part): OpenAIResponsesInputContent[] => {
    // A part read by fromOpenAIResponsesInput maps to its content item.
    const known = run.options.origins?.parts.get(part) as Item | undefined;
    if (known !== undefined && known['type'] !== 'output_text' && known['type'] !== 'refusal') {
      return [known as OpenAIResponsesInputContent];
    }
    return [freshContent(part)];
  });
}

function freshContent(part: ContentPart): OpenAIResponsesInputContent {
  if (part.type === 'text' || part.type === 'reasoning') return { type: 'input_text', text: part.text };
  if (part.type === 'provider') return { type: 'input_text', text: '' };
  if (part.type === 'image') return { type: 'input_image', detail: 'auto', image_url: part.url };
  const filename = part.filename === undefined ? {} : { filename: part.filename };
  return parseDataUrl(part.url) === undefined
    ? { type: 'input_file', file_url: part.url, ...filename }
    : { type: 'input_file', file_data: part.url, ...filename };
}
