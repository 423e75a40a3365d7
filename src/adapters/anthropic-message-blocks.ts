import type { JsonObject } from '../core/json.js';
import type { ContentPart, Message, ToolCall } from '../core/message.js';
import {
  type BlockRun,
  type CallIdMap,
  partBlock,
  providerBlock,
  thinkingBlock,
  toolInput,
  toolResultBlock,
} from './anthropic-blocks.js';
import type { AnthropicContentBlock, AnthropicToolUseBlock } from './anthropic-types.js';
import { layoutOf, nativeFieldsOf } from './native-fields.js';
import { ANTHROPIC } from './read-anthropic-block.js';

/** What {@link anthropicMessageBlocks} needs besides the message. */
export type MessageBlocksRun = BlockRun & { readonly ids: CallIdMap };

/**
 * The blocks of a user, assistant or tool message, from the message alone: its parts and calls with
 * their `native.anthropic` fields, Anthropic provider parts as the blocks they hold, an assistant's
 * `tool_use` blocks where they sat among its blocks when it was read (`native.anthropic.ctxloom.toolUses`,
 * used while the parts and calls still match it), else after its content.
 */
export function anthropicMessageBlocks(message: Message, run: MessageBlocksRun): AnthropicContentBlock[] {
  if (message.role === 'tool') {
    return [toolResultBlock(message, { ...run, id: run.ids.get(message.toolCallId ?? '', run) })];
  }
  if (message.role !== 'assistant') return blocksOf(message.content, { ...run, isAssistant: false });
  if (message.reasoning !== undefined && message.reasoning !== '') {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'reasoning left out (Anthropic takes thinking only with the signature the model returned)',
    });
  }
  const content = blocksOf(message.content, { ...run, isAssistant: true });
  const calls = (message.toolCalls ?? []).map((call) => toolUse(call, run));
  const positions = layoutOf(message, ANTHROPIC)['toolUses'];
  if (!Array.isArray(positions) || !fitsPositions(positions, { content, calls }))
    return [...content, ...calls];
  const out: AnthropicContentBlock[] = [];
  const rest = [...content];
  for (let at = 0; at < content.length + calls.length; at += 1) {
    const call = positions.indexOf(at);
    const next = call === -1 ? rest.shift() : calls[call];
    if (next !== undefined) out.push(next);
  }
  return out;
}

/** The Anthropic message's own fields a message carries (its `native.anthropic`, or for a tool message the recorded ones). */
export function anthropicMessageFields(message: Message): JsonObject {
  if (message.role !== 'tool') return nativeFieldsOf(message, ANTHROPIC);
  const recorded = layoutOf(message, ANTHROPIC)['message'];
  // Recorded by fromAnthropicMessages: the Anthropic message's extra fields, a JSON object.
  return typeof recorded === 'object' && recorded !== null && !Array.isArray(recorded)
    ? (recorded as JsonObject)
    : {};
}

function fitsPositions(
  positions: readonly unknown[],
  run: { readonly content: readonly unknown[]; readonly calls: readonly unknown[] },
): boolean {
  const total = run.content.length + run.calls.length;
  return (
    positions.length === run.calls.length &&
    positions.every(
      (position, at) =>
        typeof position === 'number' &&
        Number.isInteger(position) &&
        position >= 0 &&
        position < total &&
        (at === 0 || position > Number(positions[at - 1])),
    )
  );
}

function blocksOf(
  content: Message['content'],
  run: MessageBlocksRun & { readonly isAssistant: boolean },
): AnthropicContentBlock[] {
  const parts: readonly ContentPart[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return parts.flatMap((part): AnthropicContentBlock[] => {
    const block =
      part.type === 'reasoning' && run.isAssistant
        ? thinkingBlock(part, run)
        : part.type === 'provider'
          ? providerBlock(part, run)
          : partBlock(part, run);
    if (block === undefined) return [];
    if (block.type === 'tool_use') run.ids.get(block.id, run);
    return [block];
  });
}

/** A tool call as a `tool_use` block: its `native.anthropic` fields with the id, name and input ctxloom owns. */
function toolUse(call: ToolCall, run: MessageBlocksRun): AnthropicToolUseBlock {
  const native = nativeFieldsOf(call, ANTHROPIC);
  const id = run.ids.get(call.id, run);
  // The call's own Anthropic fields overlaid with the owned ones.
  return {
    ...native,
    type: 'tool_use',
    id,
    name: call.name,
    input: toolInput(call.arguments, run),
  } as AnthropicToolUseBlock;
}
