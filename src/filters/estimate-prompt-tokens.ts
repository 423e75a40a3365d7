import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/**
 * The governor's prompt estimate: the counter's message tokens (per-message overhead and flat image
 * costs included, see `TokenCounter`) plus the tokens of the tool definitions.
 *
 * Deviation from nanobot's chain: one injected counter replaces the
 * provider-hook → cl100k → UTF-8-bytes chain, and images count a flat cost in both the prompt and the
 * per-message estimates (nanobot ignores them in one and counts base64 in the other).
 */
export function estimatePromptTokens(
  counter: TokenCounter,
  request: { readonly messages: readonly Message[]; readonly tools?: readonly ToolDefinition[] },
): number {
  const tools = request.tools ?? [];
  return counter.countMessages(request.messages) + (tools.length === 0 ? 0 : counter.countTools(tools));
}
