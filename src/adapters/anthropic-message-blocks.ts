import type { Message, ToolCall } from '../core/message.js';
import {
  type BlockRun,
  type CallIdMap,
  contentBlocks,
  toolInput,
  toolResultBlock,
  toolResultContent,
} from './anthropic-blocks.js';
import type { AnthropicOrigin, AnthropicOrigins } from './anthropic-origins.js';
import type { AnthropicContentBlock, AnthropicToolUseBlock } from './anthropic-types.js';
import { isToolError } from './tool-error.js';

/** What {@link anthropicMessageBlocks} needs besides the message. */
export type MessageBlocksRun = BlockRun & {
  readonly ids: CallIdMap;
  readonly origins: AnthropicOrigins | undefined;
};

/** The origin of a message read by `fromAnthropicMessages` with the same role. */
export function anthropicOriginOf(
  message: Message,
  origins: AnthropicOrigins | undefined,
): AnthropicOrigin | undefined {
  const origin = origins?.messages.get(message.id);
  return origin?.message.role === message.role ? origin : undefined;
}

/**
 * The blocks of a user, assistant or tool message. Read from Anthropic and unchanged: the original
 * blocks. Changed: the original blocks with what ctxloom owns replaced (text and media, thinking when
 * the reasoning changed, tool calls, the result), the others kept in place. Otherwise new blocks.
 */
export function anthropicMessageBlocks(message: Message, run: MessageBlocksRun): AnthropicContentBlock[] {
  const origin = anthropicOriginOf(message, run.origins);
  // Blocks read by fromAnthropicMessages are the caller's Anthropic blocks.
  const sourceBlocks = (origin?.blocks ?? []) as readonly AnthropicContentBlock[];
  if (origin?.message === message) {
    for (const block of sourceBlocks) reserveIds(block, run);
    return [...sourceBlocks];
  }
  if (message.role === 'tool') return [toolBlock(message, { ...run, origin })];
  const parts = run.origins?.parts;
  const before = origin?.message;
  const content =
    before !== undefined && message.content === before.content
      ? sourceBlocks.filter((block) => isContentBlock(block))
      : contentBlocks(message.content, { ...run, parts });
  if (message.role !== 'assistant') return spliceContent(sourceBlocks, content);
  return assistantBlocks(message, { ...run, sourceBlocks, content, before });
}

function toolBlock(
  message: Message,
  run: MessageBlocksRun & { readonly origin: AnthropicOrigin | undefined },
): AnthropicContentBlock {
  const id = run.ids.get(message.toolCallId ?? '', run);
  const parts = run.origins?.parts;
  // A tool message read by fromAnthropicMessages came from one tool_result block.
  const source = run.origin?.blocks[0] as AnthropicContentBlock | undefined;
  if (source?.type !== 'tool_result' || run.origin === undefined)
    return toolResultBlock(message, { ...run, id, parts });
  const { is_error: _isError, ...rest } = source;
  const content =
    message.content === run.origin.message.content
      ? source.content
      : toolResultContent(message, { ...run, parts });
  return {
    ...rest,
    tool_use_id: id,
    ...(content === undefined ? {} : { content }),
    ...(isToolError(message) ? { is_error: true } : {}),
  };
}

function assistantBlocks(
  message: Message,
  run: MessageBlocksRun & {
    readonly sourceBlocks: readonly AnthropicContentBlock[];
    readonly content: AnthropicContentBlock[];
    readonly before: Message | undefined;
  },
): AnthropicContentBlock[] {
  const isSameReasoning = run.before !== undefined && message.reasoning === run.before.reasoning;
  const isSameContent = run.before !== undefined && message.content === run.before.content;
  if (message.reasoning !== undefined && message.reasoning !== '' && !isSameReasoning) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'reasoning left out (Anthropic takes thinking only with the signature the model returned)',
    });
  }
  const sourceCalls = new Map<string, AnthropicToolUseBlock>();
  for (const block of run.sourceBlocks) if (block.type === 'tool_use') sourceCalls.set(block.id, block);
  const calls = new Map<string, AnthropicToolUseBlock>();
  for (const call of message.toolCalls ?? []) calls.set(call.id, toolUse(call, { ...run, sourceCalls }));
  const out = keptAssistantBlocks({ ...run, calls, isSameContent, isSameReasoning });
  if (!isSameContent && !out.some((block) => run.content.includes(block))) {
    const firstCall = out.findIndex((block) => block.type === 'tool_use');
    out.splice(firstCall === -1 ? out.length : firstCall, 0, ...run.content);
  }
  return [...out, ...calls.values()];
}

/** The source blocks in order, with the calls, content and thinking as the message now has them. */
function keptAssistantBlocks(
  run: MessageBlocksRun & {
    readonly sourceBlocks: readonly AnthropicContentBlock[];
    readonly content: readonly AnthropicContentBlock[];
    readonly calls: Map<string, AnthropicToolUseBlock>;
    readonly isSameContent: boolean;
    readonly isSameReasoning: boolean;
  },
): AnthropicContentBlock[] {
  const firstContent = run.sourceBlocks.findIndex(isContentBlock);
  return run.sourceBlocks.flatMap((block, index): AnthropicContentBlock[] => {
    if (isContentBlock(block)) {
      if (run.isSameContent) return [block];
      return index === firstContent ? [...run.content] : [];
    }
    if (block.type === 'tool_use') return takeCall(run.calls, block.id);
    if (!run.isSameReasoning && isThinking(block)) return [];
    reserveIds(block, run);
    return [block];
  });
}

/** The call with this id, removed from the map (so what is left are the new calls). */
function takeCall(calls: Map<string, AnthropicToolUseBlock>, id: string): AnthropicToolUseBlock[] {
  const call = calls.get(id);
  calls.delete(id);
  return call === undefined ? [] : [call];
}

function toolUse(
  call: ToolCall,
  run: MessageBlocksRun & { readonly sourceCalls: ReadonlyMap<string, AnthropicToolUseBlock> },
): AnthropicToolUseBlock {
  const id = run.ids.get(call.id, run);
  // A tool call read by fromAnthropicMessages maps to its tool_use block.
  const same = run.origins?.parts.get(call) as AnthropicToolUseBlock | undefined;
  if (same !== undefined && same.id === id) return same;
  const source = run.sourceCalls.get(call.id);
  return { ...source, type: 'tool_use', id, name: call.name, input: toolInput(call.arguments, run) };
}

/** The source blocks with the text and media ones replaced by `content` (at the first of them). */
function spliceContent(
  source: readonly AnthropicContentBlock[],
  content: AnthropicContentBlock[],
): AnthropicContentBlock[] {
  if (source.length === 0) return content;
  const out: AnthropicContentBlock[] = [];
  let placed = false;
  for (const block of source) {
    if (!isContentBlock(block)) out.push(block);
    else if (!placed) {
      out.push(...content);
      placed = true;
    }
  }
  if (!placed) out.unshift(...content);
  return out;
}

function isContentBlock(block: AnthropicContentBlock): boolean {
  return block.type === 'text' || block.type === 'image' || block.type === 'document';
}

function isThinking(block: AnthropicContentBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

function reserveIds(block: AnthropicContentBlock, run: MessageBlocksRun): void {
  if (block.type === 'tool_use') run.ids.get(block.id, run);
  if (block.type === 'tool_result') run.ids.get(block.tool_use_id, run);
}
