import type { ContentPart, Message } from '../core/message.js';
import type { AdapterWarning } from './adapter-warning.js';
import { parseDataUrl } from './adapter-warning.js';
import type {
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
} from './anthropic-types.js';

/** Options for {@link toAnthropicMessages}. */
export type ToAnthropicMessagesOptions = {
  /** Separator between hoisted system messages. @default '\n\n' */
  readonly systemSeparator?: string;
  /** The user text inserted when the conversation would start with an assistant. @default '(conversation continued)' */
  readonly continuationText?: string;
  /** Text sent for a message whose content is empty (Anthropic rejects empty text). @default '(empty)' */
  readonly emptyText?: string;
};

/** What {@link toAnthropicMessages} returns. */
export type ToAnthropicMessagesResult = {
  /** The hoisted system prompt (`undefined` when there is none). */
  readonly system: string | undefined;
  readonly messages: readonly AnthropicMessage[];
  readonly warnings: readonly AdapterWarning[];
};

const ANTHROPIC_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * Converts messages to an Anthropic Messages API request: system messages are hoisted into `system`;
 * tool calls become `tool_use` blocks (arguments parsed to an object) and tool results `tool_result`
 * blocks placed first in the next user message; consecutive same-role messages are merged so roles
 * strictly alternate, starting with a user message; images become `base64` (data URLs) or `url`
 * sources, PDFs `document` blocks. Call ids outside `[A-Za-z0-9_-]` are rewritten consistently.
 * Reasoning (which Anthropic only accepts with a signature), empty texts and other losses are named in
 * the warnings. Run the governor first: the adapter does not repair tool-call integrity.
 */
export function toAnthropicMessages(
  messages: readonly Message[],
  options: ToAnthropicMessagesOptions = {},
): ToAnthropicMessagesResult {
  const warnings: AdapterWarning[] = [];
  const systemParts: string[] = [];
  const out: { role: 'user' | 'assistant'; content: AnthropicContentBlock[] }[] = [];
  const ids = new CallIdMap();
  const emptyText = options.emptyText ?? '(empty)';
  let seenNonSystem = false;
  messages.forEach((message, index) => {
    const run = { index, warnings };
    if (message.role === 'system') {
      if (seenNonSystem)
        warnings.push({
          type: 'converted',
          index,
          message: 'system message after the conversation start hoisted into system',
        });
      systemParts.push(textOnly(message.content, run));
      return;
    }
    seenNonSystem = true;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks =
      message.role === 'tool'
        ? [toolResult(message, { ...run, ids })]
        : contentBlocks(message, { ...run, ids });
    const last = out.at(-1);
    if (last !== undefined && last.role === role) {
      // Tool results must come first in a user message.
      if (message.role === 'tool') last.content.splice(firstNonResult(last.content), 0, ...blocks);
      else last.content.push(...blocks);
    } else {
      out.push({ role, content: [...blocks] });
    }
  });
  for (const [index, message] of out.entries()) {
    if (message.content.length === 0) {
      message.content.push({ type: 'text', text: emptyText });
      warnings.push({
        type: 'inserted',
        index,
        message: `empty ${message.role} turn sent as ${JSON.stringify(emptyText)}`,
      });
    }
  }
  if (out[0]?.role === 'assistant') {
    out.unshift({
      role: 'user',
      content: [{ type: 'text', text: options.continuationText ?? '(conversation continued)' }],
    });
    warnings.push({
      type: 'inserted',
      index: 0,
      message: 'user turn inserted: the conversation must start with a user message',
    });
  }
  const system = systemParts.filter((text) => text !== '').join(options.systemSeparator ?? '\n\n');
  return { system: system === '' ? undefined : system, messages: out, warnings };
}

type Run = { readonly index: number; readonly warnings: AdapterWarning[]; readonly ids: CallIdMap };

class CallIdMap {
  readonly #map = new Map<string, string>();
  readonly #used = new Set<string>();

  get(id: string, run: Pick<Run, 'index' | 'warnings'>): string {
    const known = this.#map.get(id);
    if (known !== undefined) return known;
    let safe = id.replace(/[^A-Za-z0-9_-]/g, '_');
    if (safe === '') safe = 'call';
    let candidate = safe;
    for (let suffix = 2; this.#used.has(candidate); suffix += 1) candidate = `${safe}_${suffix}`;
    if (candidate !== id)
      run.warnings.push({
        type: 'converted',
        index: run.index,
        message: `tool call id ${JSON.stringify(id)} sent as ${candidate}`,
      });
    this.#map.set(id, candidate);
    this.#used.add(candidate);
    return candidate;
  }
}

function firstNonResult(blocks: readonly AnthropicContentBlock[]): number {
  const index = blocks.findIndex((block) => block.type !== 'tool_result');
  return index === -1 ? blocks.length : index;
}

function textOnly(content: Message['content'], run: Pick<Run, 'index' | 'warnings'>): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: `${part.type} part of a system message left out`,
      });
  }
  return texts.join('\n');
}

function contentBlocks(message: Message, run: Run): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  if (message.reasoning !== undefined) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'reasoning left out (Anthropic needs a thinking signature)',
    });
  }
  for (const part of typeof message.content === 'string'
    ? [{ type: 'text' as const, text: message.content }]
    : message.content) {
    const block = partBlock(part, run);
    if (block !== undefined) blocks.push(block);
  }
  for (const call of message.toolCalls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: run.ids.get(call.id, run),
      name: call.name,
      input: parseInput(call.arguments, run),
    });
  }
  return blocks;
}

function partBlock(
  part: ContentPart,
  run: Pick<Run, 'index' | 'warnings'>,
): AnthropicContentBlock | undefined {
  if (part.type === 'text') {
    if (part.text.trim() !== '') return { type: 'text', text: part.text };
    if (part.text !== '')
      run.warnings.push({
        type: 'dropped-field',
        index: run.index,
        message: 'whitespace-only text left out',
      });
    return undefined;
  }
  const data = parseDataUrl(part.url);
  if (part.type === 'image') return imageBlock(part.url, run);
  if (part.mediaType === 'application/pdf') {
    return {
      type: 'document',
      source:
        data === undefined
          ? { type: 'url', url: part.url }
          : { type: 'base64', media_type: 'application/pdf', data: data.data },
    };
  }
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `file of type ${part.mediaType} left out`,
  });
  return undefined;
}

function imageBlock(url: string, run: Pick<Run, 'index' | 'warnings'>): AnthropicImageBlock | undefined {
  const data = parseDataUrl(url);
  if (data === undefined) return { type: 'image', source: { type: 'url', url } };
  if (!ANTHROPIC_IMAGE_TYPES.has(data.mediaType)) {
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message: `image of type ${data.mediaType} left out`,
    });
    return undefined;
  }
  return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
}

function toolResult(message: Message, run: Run): AnthropicToolResultBlock {
  const id = run.ids.get(message.toolCallId ?? '', run);
  if (typeof message.content === 'string')
    return { type: 'tool_result', tool_use_id: id, content: message.content };
  const content: (AnthropicTextBlock | AnthropicImageBlock)[] = [];
  for (const part of message.content) {
    const block = part.type === 'image' ? imageBlock(part.url, run) : partBlock(part, run);
    if (block?.type === 'text' || block?.type === 'image') content.push(block);
    else if (block !== undefined)
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: 'document in a tool result left out',
      });
  }
  return { type: 'tool_result', tool_use_id: id, content };
}

function parseInput(raw: string, run: Pick<Run, 'index' | 'warnings'>): Readonly<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Readonly<Record<string, unknown>>; // checked: a plain object
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: 'tool arguments are not a JSON object; sent as { value }',
    });
    return { value };
  } catch {
    run.warnings.push({
      type: 'converted',
      index: run.index,
      message: 'tool arguments are not valid JSON; sent as { raw }',
    });
    return { raw };
  }
}
