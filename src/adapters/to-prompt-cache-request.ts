import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Message, sectionOf } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { AnthropicContentBlock, AnthropicSystem, AnthropicTool } from './anthropic-types.js';
import type { PromptCacheBlock, PromptCacheRequest } from './prompt-cache-request.js';

/** Options shared by the `*PromptCacheRequest` converters. */
export type PromptCacheRequestOptions = {
  /** Counts each block's tokens. @default an `EstimatingTokenCounter` */
  readonly tokenCounter?: TokenCounter;
  /** When the request is sent, in milliseconds. @default none (no expiry between requests) */
  readonly at?: number;
  /** The model the request goes to. */
  readonly model?: string;
};

/** The keys of {@link PromptCacheRequestOptions}, for `checkOptions`. @internal */
export const PROMPT_CACHE_REQUEST_OPTION_KEYS = {
  tokenCounter: true,
  at: true,
  model: true,
} as const satisfies OptionKeys<PromptCacheRequestOptions>;

/** Flat cost of an image or document block (Anthropic bills about 1,600 tokens for a 1092×1092 image). */
const MEDIA_TOKENS = 1_600;
/** Role and framing tokens per message. */
const MESSAGE_OVERHEAD = 4;

/** The parts of an Anthropic Messages request that the prompt cache covers. */
export type AnthropicCacheInput = {
  readonly tools?: readonly AnthropicTool[] | undefined;
  readonly system?: AnthropicSystem | undefined;
  readonly messages: readonly {
    readonly role: 'user' | 'assistant';
    readonly content: string | readonly AnthropicContentBlock[];
  }[];
};

/**
 * Describes an Anthropic Messages request (tools → system → messages, one block per tool, system
 * block and content block) for the simulator and `diffRequests`, with its `cache_control` markers.
 */
export function anthropicPromptCacheRequest(
  request: AnthropicCacheInput,
  options: PromptCacheRequestOptions = {},
): PromptCacheRequest {
  checkOptions(options, {
    where: 'anthropicPromptCacheRequest options',
    known: PROMPT_CACHE_REQUEST_OPTION_KEYS,
  });
  const counter = options.tokenCounter ?? new EstimatingTokenCounter();
  const blocks: PromptCacheBlock[] = [];
  (request.tools ?? []).forEach((tool, index) => {
    const { cache_control: control, ...rest } = tool;
    blocks.push(
      block(
        { area: 'tools', index, part: 0, text: JSON.stringify(rest) },
        control,
        counter.countText(JSON.stringify(rest)),
      ),
    );
  });
  const system =
    typeof request.system === 'string'
      ? [{ type: 'text' as const, text: request.system }]
      : (request.system ?? []);
  system.forEach((entry, index) => {
    const { cache_control: control, ...rest } = entry;
    blocks.push(
      block(
        { area: 'system', index, part: 0, text: JSON.stringify(rest) },
        control,
        counter.countText(entry.text),
      ),
    );
  });
  request.messages.forEach((message, index) => {
    const content: readonly AnthropicContentBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    content.forEach((entry, part) => {
      const { cache_control: control, ...rest } = entry as AnthropicContentBlock & {
        readonly cache_control?: never;
      };
      const tokens = visibleTokens(entry, counter) + (part === 0 ? MESSAGE_OVERHEAD : 0);
      blocks.push(
        block(
          { area: 'messages', index, part, text: `${message.role}:${JSON.stringify(rest)}` },
          control,
          tokens,
        ),
      );
    });
  });
  return finish(blocks, options);
}

/**
 * Describes an OpenAI chat request (tools, then one block per message) for the simulator and
 * `diffRequests`. OpenAI caches whole prefixes automatically, so no markers are read.
 */
export function openAIPromptCacheRequest(
  request: { readonly messages: readonly object[]; readonly tools?: readonly object[] | undefined },
  options: PromptCacheRequestOptions = {},
): PromptCacheRequest {
  checkOptions(options, {
    where: 'openAIPromptCacheRequest options',
    known: PROMPT_CACHE_REQUEST_OPTION_KEYS,
  });
  const counter = options.tokenCounter ?? new EstimatingTokenCounter();
  const blocks: PromptCacheBlock[] = [];
  (request.tools ?? []).forEach((tool, index) => {
    const text = JSON.stringify(tool);
    blocks.push({ area: 'tools', index, part: 0, text, tokens: counter.countText(text) });
  });
  request.messages.forEach((message, index) => {
    const text = JSON.stringify(message);
    const role = (message as { readonly role?: unknown }).role;
    const area = role === 'system' || role === 'developer' ? 'system' : 'messages';
    blocks.push({
      area,
      index,
      part: 0,
      text,
      tokens: counter.countText(openAIVisibleText(message)) + MESSAGE_OVERHEAD,
    });
  });
  return finish(blocks, options);
}

/**
 * Describes ctxloom messages (and the tools sent with them) as one block per tool and per message,
 * each tagged with its section: what `diffRequests` and `findVolatileContent` compare across builds.
 */
export function messagesPromptCacheRequest(
  messages: readonly Message[],
  options: PromptCacheRequestOptions & { readonly tools?: readonly ToolDefinition[] } = {},
): PromptCacheRequest {
  checkOptions(options, {
    where: 'messagesPromptCacheRequest options',
    known: { ...PROMPT_CACHE_REQUEST_OPTION_KEYS, tools: true },
  });
  const counter = options.tokenCounter ?? new EstimatingTokenCounter();
  const blocks: PromptCacheBlock[] = [];
  (options.tools ?? []).forEach((tool, index) => {
    blocks.push({
      area: 'tools',
      index,
      part: 0,
      text: JSON.stringify(tool),
      tokens: counter.countTools([tool]),
    });
  });
  messages.forEach((message, index) => {
    const { role, content, name, toolCalls, toolCallId, reasoning } = message;
    const text = JSON.stringify({ role, content, name, toolCalls, toolCallId, reasoning });
    const section = sectionOf(message);
    blocks.push({
      area: role === 'system' ? 'system' : 'messages',
      index,
      part: 0,
      ...(section === undefined ? {} : { section }),
      text,
      tokens: counter.countMessage(message),
    });
  });
  return finish(blocks, options);
}

function block(
  where: Pick<PromptCacheBlock, 'area' | 'index' | 'part' | 'text'>,
  control: PromptCacheBlock['cacheControl'],
  tokens: number,
): PromptCacheBlock {
  return { ...where, tokens, ...(control === undefined ? {} : { cacheControl: control }) };
}

function finish(blocks: readonly PromptCacheBlock[], options: PromptCacheRequestOptions): PromptCacheRequest {
  return {
    blocks,
    ...(options.at === undefined ? {} : { at: options.at }),
    ...(options.model === undefined ? {} : { model: options.model }),
  };
}

function visibleTokens(entry: AnthropicContentBlock, counter: TokenCounter): number {
  switch (entry.type) {
    case 'text':
      return counter.countText(entry.text);
    case 'thinking':
      return counter.countText(entry.thinking);
    case 'redacted_thinking':
      return counter.countText(entry.data);
    case 'tool_use':
      return counter.countText(`${entry.name} ${JSON.stringify(entry.input)}`);
    case 'tool_result':
      if (entry.content === undefined) return 1;
      if (typeof entry.content === 'string') return counter.countText(entry.content);
      return entry.content.reduce(
        (sum, inner) => sum + (inner.type === 'text' ? counter.countText(inner.text) : MEDIA_TOKENS),
        0,
      );
    default:
      return MEDIA_TOKENS;
  }
}

function openAIVisibleText(message: object): string {
  const { content, tool_calls: calls } = message as {
    readonly content?: unknown;
    readonly tool_calls?: unknown;
  };
  const parts: string[] = [];
  if (typeof content === 'string') parts.push(content);
  else if (Array.isArray(content))
    for (const part of content) if (typeof part?.text === 'string') parts.push(part.text);
  if (Array.isArray(calls)) for (const call of calls) parts.push(JSON.stringify(call?.function ?? call));
  return parts.join('\n');
}
