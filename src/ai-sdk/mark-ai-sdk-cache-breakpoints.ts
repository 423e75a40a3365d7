import { anthropicMinCacheableTokens } from '../adapters/prompt-cache-rules.js';
import type { OptionKeys } from '../core/check-options.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type AiSdkProviderOptions, fieldOf } from './ai-sdk-message-like.js';

/** Anthropic prompt caching for the AI SDK integration (`createPrepareStep`, `ctxloomMiddleware`). */
export type AiSdkAnthropicCacheOptions = {
  /** The Claude model (picks the minimum cacheable length). @default a 1,024-token minimum */
  readonly model?: string;
  /** The minimum cacheable prefix, overriding the model's. */
  readonly minTokens?: number;
  /** Lifetime of the system-prompt and tools anchors; conversation anchors use 5m. @default '5m' */
  readonly ttl?: '5m' | '1h';
  /** Estimates prefix lengths. @default an `EstimatingTokenCounter` */
  readonly tokenCounter?: TokenCounter;
};

/** The keys of {@link AiSdkAnthropicCacheOptions}, for `checkOptions`. @internal */
export const AI_SDK_ANTHROPIC_CACHE_OPTION_KEYS = {
  model: true,
  minTokens: true,
  ttl: true,
  tokenCounter: true,
} as const satisfies OptionKeys<AiSdkAnthropicCacheOptions>;

/** A provider-level tool (middleware) that can carry `providerOptions`. */
type ToolLike = { readonly type?: string; readonly providerOptions?: AiSdkProviderOptions | undefined };

/** Any AI SDK message: a `ModelMessage` or a provider prompt message. */
type MessageLike = {
  readonly role: string;
  readonly content: unknown;
  readonly providerOptions?: AiSdkProviderOptions | undefined;
};

const MAX_BREAKPOINTS = 4;

/** The message or tool each copy marked here was made from: a marked copy handed back is unmarked first. */
const ORIGINALS = new WeakMap<object, object>();

/**
 * Sets Anthropic `cacheControl` in `providerOptions.anthropic` (what `@ai-sdk/anthropic` turns into
 * `cache_control` on the message's last part) on the conversation tail, the end of the previous
 * request (the user or tool turn before the last assistant turn), the last system message and the
 * last tool, in that priority, within four markers counting those already present and never below
 * the minimum cacheable length. Marked messages are copies; the others are the same objects.
 */
export function markAiSdkCacheBreakpoints<TMessage extends MessageLike, TTool extends ToolLike>(
  given: readonly TMessage[],
  run: {
    readonly tools?: readonly TTool[] | undefined;
    readonly options: AiSdkAnthropicCacheOptions;
    /** Tokens sent before the messages but not among them (a `system` and tools passed apart). */
    readonly leadingTokens?: number;
  },
): { readonly messages: readonly TMessage[]; readonly tools: readonly TTool[] | undefined } {
  const { options } = run;
  // A copy marked by an earlier call (AI SDK 7 carries prepareStep's messages into the next step).
  const messages = given.map((message) => (ORIGINALS.get(message) as TMessage | undefined) ?? message);
  const counter = options.tokenCounter ?? new EstimatingTokenCounter();
  const givenTools = run.tools?.map((tool) => (ORIGINALS.get(tool) as TTool | undefined) ?? tool);
  const tools = givenTools ?? [];
  const toolTokens = tools.reduce((sum, tool) => sum + counter.countText(JSON.stringify(tool)), 0);
  const totals: number[] = [];
  let sum = toolTokens + (run.leadingTokens ?? 0);
  for (const message of messages) {
    sum += counter.countText(
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    );
    totals.push(sum);
  }
  const minTokens = options.minTokens ?? anthropicMinCacheableTokens(options.model);
  const existing =
    messages.filter((message) => hasMarker(message.providerOptions) || partsMarked(message)).length +
    tools.filter((tool) => hasMarker(tool.providerOptions)).length;
  const tail = messages.length - 1;
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const carry = messages.findLastIndex(
    (message, index) => index < lastAssistant && (message.role === 'user' || message.role === 'tool'),
  );
  const lastSystem = messages.findLastIndex((message) => message.role === 'system');
  const chosen = new Set<number>();
  let markTools = false;
  let budget = MAX_BREAKPOINTS - existing;
  for (const index of [tail, carry, lastSystem]) {
    if (budget <= 0 || index < 0 || chosen.has(index) || (totals[index] ?? 0) < minTokens) continue;
    if (hasMarker(messages[index]?.providerOptions)) continue;
    chosen.add(index);
    budget -= 1;
  }
  const lastToolIndex = tools.findLastIndex((tool) => tool.type !== 'provider');
  const lastTool = tools[lastToolIndex];
  if (budget > 0 && lastTool !== undefined && toolTokens >= minTokens && !hasMarker(lastTool.providerOptions))
    markTools = true;
  const stableTtl = options.ttl === '1h' && existing === 0 ? '1h' : undefined;
  const markedMessages = messages.map((message, index) =>
    chosen.has(index) ? withMarker(message, index === lastSystem ? stableTtl : undefined) : message,
  );
  const markedTools =
    givenTools === undefined || !markTools
      ? givenTools
      : givenTools.map((tool, index) => (index === lastToolIndex ? withMarker(tool, stableTtl) : tool));
  return { messages: markedMessages, tools: markedTools };
}

function hasMarker(providerOptions: AiSdkProviderOptions | undefined): boolean {
  const anthropic = providerOptions?.['anthropic'];
  return anthropic?.['cacheControl'] !== undefined || anthropic?.['cache_control'] !== undefined;
}

function partsMarked(message: MessageLike): boolean {
  if (!Array.isArray(message.content)) return false;
  return message.content.some(
    (part: unknown) =>
      typeof part === 'object' &&
      part !== null &&
      // A part's providerOptions: `{ [provider]: { [key]: JSON } }`.
      hasMarker(fieldOf(part, 'providerOptions') as AiSdkProviderOptions | undefined),
  );
}

function withMarker<TValue extends { readonly providerOptions?: AiSdkProviderOptions | undefined }>(
  value: TValue,
  ttl: '1h' | undefined,
): TValue {
  const cacheControl = ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
  const providerOptions = value.providerOptions ?? {};
  const marked = {
    ...value,
    providerOptions: { ...providerOptions, anthropic: { ...providerOptions['anthropic'], cacheControl } },
  };
  ORIGINALS.set(marked, value);
  return marked;
}
