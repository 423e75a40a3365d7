import type { CacheBreakpointPlan } from '../adapters/plan-cache-breakpoints.js';
import type { PromptCacheRequest } from '../adapters/prompt-cache-request.js';
import { toAnthropicMessages } from '../adapters/to-anthropic-messages.js';
import { toOpenAIChatMessages } from '../adapters/to-openai-chat-messages.js';
import {
  anthropicPromptCacheRequest,
  openAIPromptCacheRequest,
} from '../adapters/to-prompt-cache-request.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { toOpenAITools } from '../llm/to-openai-request.js';
import { ContentHash } from '../tokens/content-hash.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** One request as both providers' prompt caches see it, with what their adapters refused. */
export type ProviderRequests = {
  readonly anthropic: PromptCacheRequest | undefined;
  readonly openai: PromptCacheRequest | undefined;
  /** The breakpoint plan to pass to the next request. */
  readonly plan: CacheBreakpointPlan | undefined;
  /** Adapter errors (empty when both requests were made). */
  readonly problems: readonly string[];
};

/** Options for {@link toProviderRequests}. */
export type ToProviderRequestsOptions = {
  readonly tools: readonly ToolDefinition[];
  /** When the request is sent (ms), for cache lifetimes. */
  readonly at: number;
  /** The Anthropic model (minimum cacheable length). */
  readonly model: string;
  /** `planned`: ctxloom's breakpoint planner; `last-message`: one marker on the last message. */
  readonly anthropicCache: 'planned' | 'last-message';
  /** The previous request's plan (`planned` only). */
  readonly previous: CacheBreakpointPlan | undefined;
  readonly tokenCounter: TokenCounter;
};

/**
 * Converts the ctxloom messages of one request into the Anthropic Messages and OpenAI chat requests
 * and describes both for `simulatePromptCache`. Each block's text is kept as a 64-bit fingerprint
 * (the simulator only compares prefixes), so a long run holds no copy of what it sent.
 */
export function toProviderRequests(
  messages: readonly Message[],
  options: ToProviderRequestsOptions,
): ProviderRequests {
  const problems: string[] = [];
  const common = { at: options.at, tokenCounter: options.tokenCounter };
  let anthropic: PromptCacheRequest | undefined;
  let plan: CacheBreakpointPlan | undefined;
  try {
    const last = messages.at(-1);
    const request = toAnthropicMessages(messages, {
      tools: options.tools,
      ...(options.anthropicCache === 'planned'
        ? {
            cache: {
              model: options.model,
              ...(options.previous === undefined ? {} : { previous: options.previous }),
            },
          }
        : {
            cacheBreakpoints: {
              messages: last === undefined ? {} : { [last.id]: { type: 'ephemeral' as const } },
            },
          }),
    });
    plan = request.cachePlan;
    anthropic = fingerprinted(anthropicPromptCacheRequest(request, { ...common, model: options.model }));
  } catch (error) {
    problems.push(`Anthropic adapter: ${describe(error)}`);
  }
  let openai: PromptCacheRequest | undefined;
  try {
    openai = openAIRequest(messages, options);
  } catch (error) {
    problems.push(`OpenAI adapter: ${describe(error)}`);
  }
  return { anthropic, openai, plan, problems };
}

/** Each message's OpenAI block (fingerprint and tokens), kept by message identity. */
const openAIBlocks = new WeakMap<Message, { readonly text: string; readonly tokens: number }>();
/** Each tool list's OpenAI blocks, kept by list identity. */
const openAITools = new WeakMap<readonly ToolDefinition[], PromptCacheRequest['blocks']>();

/**
 * The OpenAI chat request of `messages`, one block per tool and per message as
 * `openAIPromptCacheRequest` lays it out. The adapter is run on the whole list (it throws on what
 * it cannot map); as it maps each message on its own, a block is fingerprinted from the ctxloom
 * message, once per message object, instead of from the adapter's copy.
 */
function openAIRequest(messages: readonly Message[], options: ToProviderRequestsOptions): PromptCacheRequest {
  toOpenAIChatMessages(messages, { toolPairing: 'throw' });
  let tools = openAITools.get(options.tools);
  if (tools === undefined) {
    tools = openAIPromptCacheRequest(
      { messages: [], tools: toOpenAITools(options.tools) },
      { at: options.at, tokenCounter: options.tokenCounter, model: options.model },
    ).blocks;
    openAITools.set(options.tools, tools);
  }
  const blocks = [...tools];
  messages.forEach((message, index) => {
    let known = openAIBlocks.get(message);
    if (known === undefined) {
      const { role, content, name, toolCalls, toolCallId, reasoning } = message;
      known = {
        text: new ContentHash()
          .add(JSON.stringify({ role, content, name, toolCalls, toolCallId, reasoning }))
          .digest(),
        tokens: options.tokenCounter.countMessage(message),
      };
      openAIBlocks.set(message, known);
    }
    blocks.push({ area: message.role === 'system' ? 'system' : 'messages', index, part: 0, ...known });
  });
  return { blocks, at: options.at };
}

function fingerprinted(request: PromptCacheRequest): PromptCacheRequest {
  return {
    ...request,
    blocks: request.blocks.map((block) => ({ ...block, text: new ContentHash().add(block.text).digest() })),
  };
}

function describe(error: unknown): string {
  return ContextError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
}
