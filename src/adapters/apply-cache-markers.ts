import type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicSystem,
  AnthropicTool,
} from './anthropic-types.js';
import type { PromptCacheBlock } from './prompt-cache-request.js';

/** The parts of an Anthropic Messages request the planner marks. */
export type AnthropicCacheableRequest = {
  readonly tools?: AnthropicTool[] | undefined;
  readonly system?: AnthropicSystem | undefined;
  readonly messages: AnthropicMessage[];
};

/** A marker to set: the block's area, index and part, and its `cache_control`. */
export type CacheMarkerPlacement = Pick<PromptCacheBlock, 'area' | 'index' | 'part'> & {
  readonly control: AnthropicCacheControl;
};

/** The request with `cache_control` set on the given blocks, copy-on-write (unmarked parts are the same objects). */
export function applyCacheMarkers(
  request: AnthropicCacheableRequest,
  placements: readonly CacheMarkerPlacement[],
): AnthropicCacheableRequest {
  if (placements.length === 0) return request;
  const at = (area: PromptCacheBlock['area'], index: number) =>
    placements.filter((placement) => placement.area === area && placement.index === index);
  const tools = request.tools?.map((tool, index) => {
    const control = at('tools', index)[0]?.control;
    return control === undefined ? tool : { ...tool, cache_control: control };
  });
  const systemMarks = placements.some((placement) => placement.area === 'system');
  const systemBlocks =
    typeof request.system === 'string' && systemMarks
      ? [{ type: 'text' as const, text: request.system }]
      : request.system;
  const system =
    typeof systemBlocks === 'string' || systemBlocks === undefined
      ? systemBlocks
      : systemBlocks.map((entry, index) => {
          const control = at('system', index)[0]?.control;
          return control === undefined ? entry : { ...entry, cache_control: control };
        });
  const messages = request.messages.map((message, index): AnthropicMessage => {
    const marks = at('messages', index);
    if (marks.length === 0) return message;
    const content: AnthropicContentBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
    for (const mark of marks) {
      const entry = content[mark.part];
      if (entry !== undefined && entry.type !== 'thinking' && entry.type !== 'redacted_thinking')
        content[mark.part] = { ...entry, cache_control: mark.control };
    }
    return { ...message, content };
  });
  return { tools, system, messages };
}

/** The request without any `cache_control` marker. */
export function stripCacheMarkers(request: AnthropicCacheableRequest): AnthropicCacheableRequest {
  const strip = <TBlock extends { readonly cache_control?: AnthropicCacheControl }>(
    block: TBlock,
  ): TBlock => {
    if (block.cache_control === undefined) return block;
    const { cache_control: _control, ...rest } = block;
    // The same block without its marker.
    return rest as TBlock;
  };
  return {
    tools: request.tools?.map(strip),
    system: typeof request.system === 'string' ? request.system : request.system?.map(strip),
    messages: request.messages.map((message): AnthropicMessage => {
      if (typeof message.content === 'string') return message;
      const content = message.content.map((block) =>
        strip(block as AnthropicContentBlock & { readonly cache_control?: AnthropicCacheControl }),
      );
      return content.every((block, index) => block === message.content[index])
        ? message
        : { ...message, content };
    }),
  };
}
