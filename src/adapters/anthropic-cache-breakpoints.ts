import type { OptionKeys } from '../core/check-options.js';
import type { AdapterWarning } from './adapter-warning.js';
import type {
  AnthropicCacheControl,
  AnthropicMessage,
  AnthropicSystem,
  AnthropicTool,
} from './anthropic-types.js';

/**
 * Where `toAnthropicMessages` puts prompt-cache breakpoints (`cache_control`). The Messages API takes
 * at most {@link MAX_ANTHROPIC_CACHE_BREAKPOINTS}; a cache prefix runs tools → system → messages.
 */
export type AnthropicCacheBreakpoints = {
  /** Marks the last tool definition (caches every tool). */
  readonly tools?: AnthropicCacheControl;
  /** Marks the last system block (the system prompt is then sent as text blocks). */
  readonly system?: AnthropicCacheControl;
  /** Marks the last block of each named ctxloom message (by message id). */
  readonly messages?: Readonly<Record<string, AnthropicCacheControl>>;
};

/** The keys of {@link AnthropicCacheBreakpoints}, for `checkOptions`. @internal */
export const ANTHROPIC_CACHE_BREAKPOINTS_OPTION_KEYS = {
  tools: true,
  system: true,
  messages: true,
} as const satisfies OptionKeys<AnthropicCacheBreakpoints>;

/** The most `cache_control` breakpoints one Messages API request may carry. */
export const MAX_ANTHROPIC_CACHE_BREAKPOINTS = 4;

type Markable = { readonly type?: string; readonly cache_control?: AnthropicCacheControl };

/** The list with `cache_control` set on its last block that can carry one (not thinking), copy-on-write. */
export function markLastBlock<TBlock extends Markable>(
  blocks: readonly TBlock[],
  control: AnthropicCacheControl,
): TBlock[] {
  const out = [...blocks];
  for (let index = out.length - 1; index >= 0; index -= 1) {
    const block = out[index];
    if (block === undefined || block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    out[index] = { ...block, cache_control: control };
    return out;
  }
  return out;
}

/** A request's parts that carry breakpoints. */
export type CacheableRequest = {
  readonly tools: AnthropicTool[] | undefined;
  readonly system: AnthropicSystem | undefined;
  readonly messages: AnthropicMessage[];
};

/**
 * Keeps at most four breakpoints (the API rejects more): the earliest ones are removed, so the longest
 * cached prefixes stay. Named in the warnings.
 */
export function capCacheBreakpoints(request: CacheableRequest, warnings: AdapterWarning[]): CacheableRequest {
  const counter = { excess: count(request) - MAX_ANTHROPIC_CACHE_BREAKPOINTS };
  if (counter.excess <= 0) return request;
  warnings.push({
    type: 'repaired',
    index: 0,
    message: `${counter.excess} cache_control breakpoint(s) removed from the start: the API takes at most ${MAX_ANTHROPIC_CACHE_BREAKPOINTS}`,
  });
  const tools = request.tools?.map((tool) => strip(tool, counter));
  const system =
    typeof request.system === 'string'
      ? request.system
      : request.system?.map((block) => strip(block, counter));
  const messages = request.messages.map((message): AnthropicMessage => {
    if (typeof message.content === 'string' || counter.excess <= 0) return message;
    const content = message.content.map((block) => strip(block, counter));
    return content.every((block, index) => block === message.content[index])
      ? message
      : { ...message, content };
  });
  return { tools, system, messages };
}

function strip<TBlock extends Markable>(block: TBlock, counter: { excess: number }): TBlock {
  if (counter.excess <= 0 || block.cache_control === undefined) return block;
  counter.excess -= 1;
  const { cache_control: _cacheControl, ...rest } = block;
  // The same block without its cache_control field.
  return rest as TBlock;
}

function count(request: CacheableRequest): number {
  let total = 0;
  const visit = (block: Markable): void => {
    if (block.cache_control !== undefined) total += 1;
  };
  request.tools?.forEach(visit);
  if (Array.isArray(request.system)) request.system.forEach(visit);
  for (const message of request.messages)
    if (typeof message.content !== 'string') message.content.forEach(visit);
  return total;
}
