import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message, ProviderPart, ReasoningPart, ToolCall } from '../core/message.js';
import { type AdapterWarning, parseDataUrl } from './adapter-warning.js';
import { checkMessages } from './check-messages.js';
import { foreignOriginOf } from './foreign-origins.js';
import type { OpenAIResponsesOrigins } from './from-openai-responses-input.js';
import { layoutOf, nativeFieldsOf, without } from './native-fields.js';
import type {
  OpenAIResponsesFunctionCall,
  OpenAIResponsesInputContent,
  OpenAIResponsesInputItem,
} from './openai-responses-types.js';
import { OPENAI_RESPONSES, summaryOf, type TextType } from './read-responses-content.js';
import {
  repairToolPairing,
  TOOL_PAIRING_OPTION_KEYS,
  type ToolPairingOptions,
} from './repair-tool-pairing.js';
import { scrubWithWarning } from './scrub-lone-surrogates.js';

/** Options for {@link toOpenAIResponsesInput}. */
export type ToOpenAIResponsesInputOptions = ToolPairingOptions & {
  /**
   * The `origins` of a `fromOpenAIResponsesInput` result: an optimisation only (unchanged messages come
   * back as the very items read); without it they come back equal, from the messages alone.
   */
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
  if (origin?.message === message) return [...(origin.source as readonly OpenAIResponsesInputItem[])];
  if (message.name !== undefined && message.role !== 'tool') {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'name not sent: Responses messages have none',
    });
  }
  const native = nativeFieldsOf(message, OPENAI_RESPONSES);
  switch (message.role) {
    case 'system':
    case 'user': {
      const role = message.role === 'system' && native['role'] === 'developer' ? 'developer' : message.role;
      // The item's own fields (`type`, `id`, `status` …) with the role and content ctxloom owns.
      return [{ ...native, role, content: inputContent(message.content, run) } as OpenAIResponsesInputItem];
    }
    case 'tool':
      return [
        {
          ...native,
          type: 'function_call_output',
          call_id: message.toolCallId ?? '',
          output: inputContent(message.content, run),
        } as OpenAIResponsesInputItem,
      ];
    case 'assistant':
      return assistantItems(message, run);
  }
}

/** The parts of a content (a string is one text part). */
function partsOf(content: Message['content']): readonly ContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * An assistant message's items: as recorded when it was read (`native['openai-responses'].ctxloom.items`,
 * while its parts and calls still match), else its reasoning, text and provider items in order and
 * then its calls. A call keeps its `id` only beside the reasoning item it came with.
 */
function assistantItems(message: Message, run: Run): OpenAIResponsesInputItem[] {
  if (message.reasoning !== undefined && message.reasoning !== '') {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'reasoning text left out (the Responses API takes reasoning only as reasoning items)',
    });
  }
  const layout = layoutOf(message, OPENAI_RESPONSES)['items'];
  const recorded = Array.isArray(layout) ? fromLayout(message, { ...run, layout }) : undefined;
  if (recorded !== undefined) return recorded;
  const out = defaultItems(message, run);
  const hasReasoning = out.some((item) => item.type === 'reasoning');
  const hadReasoning =
    Array.isArray(layout) && layout.some((entry) => isRecord(entry) && entry['kind'] === 'reasoning');
  const keepsId = hasReasoning || !hadReasoning;
  return [...out, ...(message.toolCalls ?? []).map((call) => functionCall(call, { ...run, keepsId }))];
}

/** Reasoning, text (one message item per run of text) and provider items, in order. */
function defaultItems(message: Message, run: Run): OpenAIResponsesInputItem[] {
  const out: OpenAIResponsesInputItem[] = [];
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0 && text.join('') !== '') out.push({ role: 'assistant', content: text.join('') });
    text = [];
  };
  for (const part of partsOf(message.content)) {
    if (part.type === 'text') {
      text.push(part.text);
      continue;
    }
    flush();
    const item =
      part.type === 'reasoning'
        ? reasoningItem(part, run)
        : part.type === 'provider'
          ? providerItem(part, run)
          : unsupported(part, { ...run, why: 'assistant messages take only text' });
    if (item !== undefined) out.push(item);
  }
  flush();
  return out;
}

/**
 * The items as the layout recorded them (calls by id: a removed one is skipped, a new one goes last);
 * `undefined` when the parts no longer match it.
 */
function fromLayout(
  message: Message,
  run: Run & { readonly layout: readonly unknown[] },
): OpenAIResponsesInputItem[] | undefined {
  const parts = partsOf(message.content);
  const calls = message.toolCalls ?? [];
  const at = { part: 0 };
  const unplaced = new Map(calls.map((call) => [call.id, call]));
  const out: OpenAIResponsesInputItem[] = [];
  const quiet: Run = { ...run, warnings: [] };
  for (const entry of run.layout) {
    if (!isRecord(entry)) return undefined;
    const item = layoutItem(entry, { ...quiet, parts, unplaced, at });
    if (item === undefined) return undefined;
    if (item !== null) out.push(item);
  }
  if (at.part !== parts.length) return undefined;
  // Calls added since the message was read go last.
  for (const call of unplaced.values()) out.push(functionCall(call, { ...run, keepsId: true }));
  return out;
}

function layoutItem(
  entry: Readonly<Record<string, unknown>>,
  run: Run & {
    readonly parts: readonly ContentPart[];
    readonly unplaced: Map<string, ToolCall>;
    readonly at: { part: number };
  },
): OpenAIResponsesInputItem | null | undefined {
  const { at } = run;
  if (entry['kind'] === 'call') {
    // A call is placed by its id: one a stage removed is skipped.
    const call = run.unplaced.get(String(entry['id']));
    if (call === undefined) return null;
    run.unplaced.delete(call.id);
    return functionCall(call, { ...run, keepsId: true });
  }
  if (entry['kind'] === 'message') {
    const count = typeof entry['parts'] === 'number' ? entry['parts'] : -1;
    const texts = run.parts.slice(at.part, at.part + count);
    at.part += count;
    return count < 0 || texts.length !== count ? undefined : messageItem(entry, texts);
  }
  const part = run.parts[at.part];
  at.part += 1;
  if (entry['kind'] === 'reasoning' && part?.type === 'reasoning') return reasoningItem(part, run);
  if (entry['kind'] === 'provider' && part?.type === 'provider') return providerItem(part, run);
  return undefined;
}

/** An assistant message item as recorded, with the text parts it holds now (`undefined` if one is not text). */
function messageItem(
  entry: Readonly<Record<string, unknown>>,
  parts: readonly ContentPart[],
): OpenAIResponsesInputItem | undefined {
  const texts = parts.flatMap((part) => (part.type === 'text' ? [part] : []));
  if (texts.length !== parts.length) return undefined;
  const [only] = texts;
  const content =
    entry['string'] === true && texts.length === 1 && only !== undefined && only.native === undefined
      ? only.text
      : texts.map((part) => textContent(part, 'output_text'));
  const fields = isRecord(entry['fields']) ? entry['fields'] : {};
  // The message item's own fields (`id`, `status`, `type`, `phase` …) with the role and content ctxloom owns.
  return { ...fields, role: 'assistant', content } as OpenAIResponsesInputItem;
}

/** A reasoning part as the reasoning item it was (OpenAI's only): another provider's is left out with a warning. */
function reasoningItem(part: ReasoningPart, run: Run): OpenAIResponsesInputItem | undefined {
  const native = nativeFieldsOf(part, OPENAI_RESPONSES);
  const itemId = part.providerOptions?.['openai']?.['itemId'];
  const id =
    typeof native['id'] === 'string' ? native['id'] : typeof itemId === 'string' ? itemId : undefined;
  if (part.provider !== 'openai' || id === undefined) {
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message:
        part.provider === 'openai'
          ? 'OpenAI reasoning without an item id left out (the Responses API takes reasoning only as the items it returned)'
          : `${part.provider ?? 'plain'} reasoning left out: the Responses API takes only its own reasoning items`,
    });
    return undefined;
  }
  const summary = native['summary'];
  const keptSummary =
    Array.isArray(summary) &&
    summary
      .map((entry) => (isRecord(entry) && typeof entry['text'] === 'string' ? entry['text'] : ''))
      .join('\n') === part.text;
  // The item's own fields (`status`, `content` …) with those ctxloom owns.
  return {
    ...native,
    type: 'reasoning',
    id,
    summary: keptSummary ? summary : summaryOf(part.text),
    ...(part.encryptedContent === undefined ? {} : { encrypted_content: part.encryptedContent }),
  } as OpenAIResponsesInputItem;
}

function providerItem(part: ProviderPart, run: Run): OpenAIResponsesInputItem | undefined {
  // A provider part of format openai-responses holds an item as the caller's input had it.
  if (part.format === OPENAI_RESPONSES) return part.value as unknown as OpenAIResponsesInputItem;
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.format} ${part.kind} left out: the Responses API does not take another provider's objects`,
  });
  return undefined;
}

function functionCall(call: ToolCall, run: Run & { readonly keepsId: boolean }): OpenAIResponsesFunctionCall {
  const native = nativeFieldsOf(call, OPENAI_RESPONSES);
  const kept = run.keepsId || native['id'] === undefined ? native : without(without(native, 'id'), 'status');
  if (kept !== native) {
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: `function_call ${call.id} sent without its item id: its reasoning item is no longer in the conversation`,
    });
  }
  // The call's own fields (`id`, `status`, `namespace` …) with those ctxloom owns.
  return {
    ...kept,
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
  } as OpenAIResponsesFunctionCall;
}

function textContent(
  part: Extract<ContentPart, { type: 'text' }>,
  defaultType: TextType,
): OpenAIResponsesInputContent {
  const native = nativeFieldsOf(part, OPENAI_RESPONSES);
  const type =
    native['type'] === 'input_text' || native['type'] === 'output_text' ? native['type'] : defaultType;
  // The content item's own fields (`annotations`, `logprobs` …) with the text ctxloom owns.
  return { ...native, type, text: part.text } as OpenAIResponsesInputContent;
}

function inputContent(content: Message['content'], run: Run): string | OpenAIResponsesInputContent[] {
  if (typeof content === 'string') return content;
  return content.flatMap((part): OpenAIResponsesInputContent[] => {
    const item = inputItem(part, run);
    return item === undefined ? [] : [item];
  });
}

function inputItem(part: ContentPart, run: Run): OpenAIResponsesInputContent | undefined {
  if (part.type === 'text') return textContent(part, 'input_text');
  // A provider part of this format inside a content holds a content item.
  if (part.type === 'provider') return providerItem(part, run) as OpenAIResponsesInputContent | undefined;
  if (part.type === 'reasoning')
    return unsupported(part, { ...run, why: 'input content takes no reasoning' });
  const native = nativeFieldsOf(part, OPENAI_RESPONSES);
  if (part.type === 'image') {
    const detail = typeof native['detail'] === 'string' ? native['detail'] : 'auto';
    // The content item's own fields (`detail`, `file_id` …) with the URL ctxloom owns.
    return { ...native, type: 'input_image', detail, image_url: part.url } as OpenAIResponsesInputContent;
  }
  const filename = part.filename === undefined ? {} : { filename: part.filename };
  const location = parseDataUrl(part.url) === undefined ? { file_url: part.url } : { file_data: part.url };
  // As above, for a file.
  return { ...native, type: 'input_file', ...location, ...filename } as OpenAIResponsesInputContent;
}

function unsupported(part: ContentPart, run: Run & { readonly why: string }): undefined {
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.type} part left out: ${run.why}`,
  });
  return undefined;
}
